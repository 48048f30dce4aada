report --limit=0 tests/data/gecko/python-sampling.json
