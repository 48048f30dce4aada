report --lens=tests/data/lens/none.lens tests/data/folded/recursion.txt
