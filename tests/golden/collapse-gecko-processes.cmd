collapse tests/data/gecko/raw-processes.json
