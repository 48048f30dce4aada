report --limit=6 tests/data/perf/inlined.txt
