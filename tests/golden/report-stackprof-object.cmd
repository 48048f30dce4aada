report --limit=10 tests/data/stackprof/object.json
