collapse --inverted tests/data/folded/inverted.txt
