collapse --time=1.4, data/sample.perf.txt
