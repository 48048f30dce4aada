report --time=1,10% data/sample.perf.txt
