collapse --all tests/data/perf/tracepoint-flat.txt
