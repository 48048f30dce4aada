report '--transform=focus-subtree:python3;[unknown]' --no-symbols tests/data/perf/procs-pid.txt
