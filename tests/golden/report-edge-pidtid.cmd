report --limit=6 tests/data/perf/pidtid.txt
