report --limit=10 tests/data/stackprof/cpu.json
