report --limit=8 tests/data/callgrind/rec.callgrind
