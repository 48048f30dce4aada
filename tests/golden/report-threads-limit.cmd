report --limit=4 tests/data/recorded/multi-process.txt
