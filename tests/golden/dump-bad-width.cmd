dump --width=0 tests/data/folded/basic.txt
