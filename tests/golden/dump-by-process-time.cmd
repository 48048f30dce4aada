dump --no-symbols --by-process --view=time-order --width=100 --height=4 --time=0,0.2 tests/data/perf/procs-pid.txt
