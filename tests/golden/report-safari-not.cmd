report --format=safari tests/data/gecko/minimal.json
