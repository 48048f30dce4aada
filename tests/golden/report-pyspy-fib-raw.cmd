report --limit=0 tests/data/pyspy/fib.raw.txt
