report --transform=fold:x tests/data/folded/recursion.txt
