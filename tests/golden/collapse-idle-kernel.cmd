collapse --kernel tests/data/perf/idle.txt
