report --limit=6 tests/data/perf/srcline.txt
