export --to=svg --normalize tests/data/folded/basic.txt
