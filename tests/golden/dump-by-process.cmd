dump --no-symbols --by-process --width=100 --height=8 tests/data/perf/procs-pid.txt
