collapse --all tests/data/perf/srcline.txt
