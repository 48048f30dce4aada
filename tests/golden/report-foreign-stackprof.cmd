report tests/data/foreign/stackprof.json
