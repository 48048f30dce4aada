collapse --all tests/data/perf/semicolon.txt
