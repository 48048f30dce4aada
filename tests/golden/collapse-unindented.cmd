collapse tests/data/perf/unindented.txt
