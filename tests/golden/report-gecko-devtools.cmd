report --limit=0 tests/data/gecko/devtools.json
