report --limit=5 tests/data/folded/diff.txt
