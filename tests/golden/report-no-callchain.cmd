report --limit=5 tests/data/recorded/no-callchain.txt
