collapse --all tests/data/perf/crlf.txt
