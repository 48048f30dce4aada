report --limit=3 --time=50%, --transform=collapse-subtree:^worker$ data/sample.perf.txt
