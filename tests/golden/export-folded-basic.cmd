export --to=folded tests/data/folded/basic.txt
