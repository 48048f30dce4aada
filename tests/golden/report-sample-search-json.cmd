report --json --limit=2 --search=Compress --thread=11195 --thread=11193 data/sample.perf.txt
