collapse --all tests/data/perf/tracepoint.txt
