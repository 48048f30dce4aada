report --limit=0 tests/data/instruments/alloc-7.txt
