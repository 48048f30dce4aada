collapse tests/data/folded/utf16be.txt
