collapse --all tests/data/perf/unknown.txt
