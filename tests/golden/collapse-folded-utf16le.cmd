collapse tests/data/folded/utf16le.txt
