collapse '--transform=focus-subtree:python3;[unknown]' tests/data/perf/procs-pid.txt
