collapse --all tests/data/perf/one-char-comm.txt
