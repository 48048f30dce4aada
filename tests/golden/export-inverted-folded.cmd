export --to=folded --inverted tests/data/folded/inverted.txt
