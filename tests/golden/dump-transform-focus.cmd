dump --width=72 --height=8 '--transform=focus-function:^worker$' --transform=collapse-recursion:fib data/sample.perf.txt
