collapse --addrs tests/data/perf/unnamed.txt
