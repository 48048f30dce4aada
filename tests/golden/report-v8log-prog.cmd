report --limit=10 tests/data/v8log/prog.v8log.json
