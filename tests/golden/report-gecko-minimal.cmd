report tests/data/gecko/minimal.json
