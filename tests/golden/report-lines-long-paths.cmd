report --lines tests/data/perf/srcline-long.txt
