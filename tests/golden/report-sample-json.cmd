report --json --limit=5 data/sample.perf.txt
