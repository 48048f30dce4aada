report --limit=3 - < tests/data/recorded/dwarf-inline.txt
