report --pid=1 data/sample.perf.txt
