dump --width=50 --height=5 tests/data/folded/basic.txt
