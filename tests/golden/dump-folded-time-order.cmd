dump --view=time-order --width=40 --height=5 tests/data/folded/basic.txt
