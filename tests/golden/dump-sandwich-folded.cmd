dump --view=sandwich --height=6 --width=60 tests/data/folded/basic.txt
