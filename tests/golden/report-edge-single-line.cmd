report --limit=6 tests/data/perf/single-line.txt
