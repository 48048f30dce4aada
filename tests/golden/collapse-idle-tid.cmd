collapse --tid tests/data/perf/idle.txt
