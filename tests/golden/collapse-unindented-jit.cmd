collapse --jit tests/data/perf/unindented.txt
