collapse tests/data/folded/bom-crlf.txt
