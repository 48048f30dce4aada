report --limit=0 tests/data/instruments/time-7.txt
