report --time=5,3 data/sample.perf.txt
