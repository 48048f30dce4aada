collapse --all tests/data/perf/deleted.txt
