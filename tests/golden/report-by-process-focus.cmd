report --no-symbols --by-process --transform=focus-function:^perf- tests/data/perf/procs-pid.txt
