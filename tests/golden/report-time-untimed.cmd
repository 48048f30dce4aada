report --time=0,1 tests/data/folded/recursion.txt
