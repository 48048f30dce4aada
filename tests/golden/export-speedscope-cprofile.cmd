export --to=speedscope tests/data/cprofile/fib.prof
