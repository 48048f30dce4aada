report --limit=2 --pid=4581 tests/data/recorded/multi-process.txt
