collapse --all tests/data/perf/perf32-java.txt
