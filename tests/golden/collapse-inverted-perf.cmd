collapse --inverted --pid tests/data/perf/processes.txt
