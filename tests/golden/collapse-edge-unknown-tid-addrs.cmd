collapse --tid --addrs tests/data/perf/unknown.txt
