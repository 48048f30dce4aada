report --limit=5 tests/data/recorded/dwarf-inline.txt
