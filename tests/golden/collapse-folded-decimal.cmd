collapse tests/data/folded/decimal.txt
