report --limit=0 --event=Count tests/data/instruments/alloc-7.txt
