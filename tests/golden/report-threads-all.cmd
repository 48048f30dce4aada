report --limit=0 tests/data/recorded/multi-process.txt
