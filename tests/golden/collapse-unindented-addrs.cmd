collapse --addrs tests/data/perf/unindented.txt
