report '--transform=merge-function:(' tests/data/folded/recursion.txt
