collapse --pid '--transform=focus-function:^worker$' --transform=merge-function:^spin data/sample.perf.txt
