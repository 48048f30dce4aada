report --limit=5 tests/data/folded/basic.txt
