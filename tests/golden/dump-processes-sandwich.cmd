dump --view=sandwich --width=80 --height=6 --function='^\[unknown\]$' tests/data/perf/processes.txt
