report --limit=5 tests/data/folded/utf16be.txt
