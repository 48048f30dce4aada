collapse --transform=merge-call-node: tests/data/folded/recursion.txt
