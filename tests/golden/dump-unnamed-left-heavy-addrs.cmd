dump --addrs --width=80 --height=10 tests/data/perf/unnamed.txt
