report --limit=8 tests/data/ghc/fib.prof
