export --to=speedscope --time=1.45, '--transform=focus-function:^worker$' data/sample.perf.txt
