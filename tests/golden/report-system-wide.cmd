report --limit=8 tests/data/recorded/system-wide.txt
