collapse data/sample.perf.txt
