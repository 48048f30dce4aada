dump --view=sandwich --width=100 --height=8 tests/data/edges/wide-total.txt
