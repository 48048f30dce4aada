dump --view=time-order --width=72 --height=6 '--transform=focus-function:^worker$' --transform=collapse-recursion:fib data/sample.perf.txt
