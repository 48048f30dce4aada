report --lines --limit=5 tests/data/chrome/fib.cpuprofile
