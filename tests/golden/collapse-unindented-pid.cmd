collapse --pid tests/data/perf/unindented.txt
