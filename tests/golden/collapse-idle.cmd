collapse tests/data/perf/idle.txt
