report tests/data/perf/unnamed.txt
