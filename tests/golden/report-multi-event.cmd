report --limit=8 tests/data/recorded/multi-event.txt
