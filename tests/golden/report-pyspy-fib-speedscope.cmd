report --limit=0 tests/data/pyspy/fib.speedscope.json
