collapse --addrs tests/data/perf/perf32-java.txt
