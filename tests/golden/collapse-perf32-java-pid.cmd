collapse --pid tests/data/perf/perf32-java.txt
