report data/sample.perf.txt
