export --to=pdf tests/data/folded/basic.txt
