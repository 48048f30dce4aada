report --event=after tests/data/folded/diff.txt
