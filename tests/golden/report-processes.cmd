report --limit=6 tests/data/perf/processes.txt
