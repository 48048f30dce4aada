dump --view=sandwich --width=100 --height=8 tests/data/ghc/fib.prof
