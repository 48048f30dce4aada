report --limit=10 tests/data/stackprof/wall.json
