collapse tests/data/folded/invalid.txt
