report --limit=6 tests/data/callgrind/prog.callgrind
