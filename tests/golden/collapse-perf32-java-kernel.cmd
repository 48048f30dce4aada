collapse --kernel tests/data/perf/perf32-java.txt
