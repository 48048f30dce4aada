report --limit=0 tests/data/gecko/raw-processes.json
