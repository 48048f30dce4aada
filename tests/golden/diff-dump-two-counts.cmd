dump --width=60 --height=4 tests/data/folded/diff.txt
