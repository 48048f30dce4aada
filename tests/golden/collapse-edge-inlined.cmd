collapse --all tests/data/perf/inlined.txt
