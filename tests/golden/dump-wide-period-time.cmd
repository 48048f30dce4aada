dump --view=time-order --width=100 --height=10 tests/data/edges/wide-total.txt
