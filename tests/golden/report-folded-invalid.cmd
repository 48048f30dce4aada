report --limit=5 tests/data/folded/invalid.txt
