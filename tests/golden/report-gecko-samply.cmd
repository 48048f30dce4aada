report --limit=0 tests/data/gecko/samply.json
