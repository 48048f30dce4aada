collapse --all tests/data/perf/kernel-jit.txt
