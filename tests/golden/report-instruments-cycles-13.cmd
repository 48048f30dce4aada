report --limit=0 tests/data/instruments/cycles-13.txt
