dump --view=time-order --inverted tests/data/folded/inverted.txt
