collapse --all tests/data/perf/pidtid.txt
