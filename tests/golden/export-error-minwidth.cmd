export --to=svg --minwidth=2x tests/data/folded/basic.txt
