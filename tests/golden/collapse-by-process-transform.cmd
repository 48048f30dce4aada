collapse --by-process '--transform=focus-subtree:python3-19086' '--transform=merge-function:^\[unknown\]$' tests/data/perf/procs-pid.txt
