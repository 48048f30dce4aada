report --limit=0 tests/data/instruments/time-16.txt
