collapse tests/data/folded/basic.txt
