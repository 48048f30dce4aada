report --lines tests/data/perf/srcline.txt
