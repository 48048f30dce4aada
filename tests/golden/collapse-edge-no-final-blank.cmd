collapse --all tests/data/perf/no-final-blank.txt
