report tests/data/chrome/fib.cpuprofile
