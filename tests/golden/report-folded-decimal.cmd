report --limit=5 tests/data/folded/decimal.txt
