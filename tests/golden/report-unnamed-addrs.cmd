report --addrs --limit=12 tests/data/perf/unnamed.txt
