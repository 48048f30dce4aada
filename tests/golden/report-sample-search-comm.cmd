report --limit=4 --search='fib|spin' --comm=demo data/sample.perf.txt
