dump --width=100 --height=6 tests/data/folded/mangled.txt
