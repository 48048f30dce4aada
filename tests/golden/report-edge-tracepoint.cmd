report --limit=6 tests/data/perf/tracepoint.txt
