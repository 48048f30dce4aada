collapse --srcline --kernel tests/data/perf/srcline.txt
