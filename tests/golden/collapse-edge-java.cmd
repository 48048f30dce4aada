collapse --all tests/data/perf/java.txt
