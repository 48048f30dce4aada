report --limit=5 --lens=tests/data/lens/triage.lens --transform=collapse-subtree:^term$ tests/data/folded/recursion.txt
