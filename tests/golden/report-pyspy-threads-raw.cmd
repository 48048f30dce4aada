report --limit=0 tests/data/pyspy/threads.raw.txt
