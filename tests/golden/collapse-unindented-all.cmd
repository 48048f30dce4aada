collapse --all tests/data/perf/unindented.txt
