report --json --limit=3 tests/data/perf/multi-event.txt
