collapse --event-filter=instructions tests/data/perf/multi-event.txt
