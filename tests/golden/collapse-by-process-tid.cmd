collapse --by-process --tid tests/data/perf/procs-pid.txt
