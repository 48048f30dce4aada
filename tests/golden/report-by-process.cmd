report --no-symbols --by-process --limit=5 tests/data/perf/procs-pid.txt
