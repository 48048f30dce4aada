report --format=gecko - < tests/data/gecko/samply.json.gz
