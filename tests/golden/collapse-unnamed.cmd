collapse tests/data/perf/unnamed.txt
