dump --width=80 --height=5 --search='fib|spin' --thread=11193 data/sample.perf.txt
