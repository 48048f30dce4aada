collapse --jit tests/data/perf/perf32-java.txt
