report --json tests/data/folded/decimal.txt
