collapse --all tests/data/perf/quotes.txt
