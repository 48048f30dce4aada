collapse --all tests/data/perf/multi-event.txt
