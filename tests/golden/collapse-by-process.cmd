collapse --by-process tests/data/perf/procs-pid.txt
