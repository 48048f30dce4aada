export --to=svg --minwidth=1 --event=after tests/data/folded/diff.txt
