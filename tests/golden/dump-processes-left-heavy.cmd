dump --width=80 --height=8 tests/data/perf/processes.txt
