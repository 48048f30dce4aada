report tests/data/gecko/samply.json.gz
