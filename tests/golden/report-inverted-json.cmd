report --inverted --json --limit=2 tests/data/folded/inverted.txt
