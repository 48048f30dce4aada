report --limit=8 tests/data/cprofile/fib.prof
