collapse --all tests/data/perf/arrow-inline.txt
