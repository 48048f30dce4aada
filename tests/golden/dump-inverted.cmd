dump --width=60 --height=6 --inverted tests/data/folded/inverted.txt
