collapse --all tests/data/recorded/dwarf-inline.txt
