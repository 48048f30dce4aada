report tests/data/edges/wide-total.txt
