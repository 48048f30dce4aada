dump --width=100 --height=16 tests/data/chrome/fib.cpuprofile
