collapse --addrs tests/data/perf/idle.txt
