collapse --jit tests/data/perf/idle.txt
