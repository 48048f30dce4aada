report --limit=4 --transform=focus-function-inverted:^gc_ tests/data/folded/recursion.txt
