report --time=1 data/sample.perf.txt
