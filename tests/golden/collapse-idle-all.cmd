collapse --all tests/data/perf/idle.txt
