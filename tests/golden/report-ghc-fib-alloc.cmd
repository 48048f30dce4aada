report --limit=8 --event=allocation tests/data/ghc/fib.prof
