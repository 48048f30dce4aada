report --search='(' data/sample.perf.txt
