report --limit=3 --format=pprof tests/data/folded/basic.txt
