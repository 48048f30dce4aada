collapse --all --tid --addrs tests/data/perf/unnamed.txt
