report --time=5,10 data/sample.perf.txt
