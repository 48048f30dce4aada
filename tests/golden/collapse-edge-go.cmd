collapse --all tests/data/perf/go.txt
