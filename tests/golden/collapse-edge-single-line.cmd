collapse --all tests/data/perf/single-line.txt
