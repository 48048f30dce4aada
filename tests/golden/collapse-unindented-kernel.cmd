collapse --kernel tests/data/perf/unindented.txt
