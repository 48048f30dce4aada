export --to=folded --transform=collapse-recursion:expr --transform=drop-function:idle tests/data/folded/recursion.txt
