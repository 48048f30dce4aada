collapse --pid tests/data/perf/idle.txt
