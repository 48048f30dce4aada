collapse tests/data/folded/diff.txt
