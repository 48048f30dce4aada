collapse --tid tests/data/perf/perf32-java.txt
