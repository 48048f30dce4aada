report --limit=0 --comm=Thread-1 tests/data/pyspy/fib.speedscope.json
