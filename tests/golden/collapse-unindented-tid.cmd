collapse --tid tests/data/perf/unindented.txt
