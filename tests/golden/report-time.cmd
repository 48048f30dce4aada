report --limit=3 --time=0.25,0.75 data/sample.perf.txt
