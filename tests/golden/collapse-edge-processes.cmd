collapse tests/data/perf/processes.txt
