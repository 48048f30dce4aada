report --limit=5 tests/data/v8log/prog.v8log.json.zip
