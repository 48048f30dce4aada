report --limit=0 tests/data/folded/mangled.txt
