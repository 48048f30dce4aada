report --limit=5 --transform=collapse-module:libc --transform=merge-function:^main$ data/sample.perf.txt
