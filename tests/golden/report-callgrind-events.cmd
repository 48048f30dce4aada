report --limit=4 tests/data/callgrind/events.callgrind
