report --inverted tests/data/folded/inverted.txt
