report --limit=6 tests/data/perf/multi-event.txt
