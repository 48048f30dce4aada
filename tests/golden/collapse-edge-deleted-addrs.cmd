collapse --all --addrs tests/data/perf/deleted.txt
