export --to=svg --minwidth=1 tests/data/folded/basic.txt
