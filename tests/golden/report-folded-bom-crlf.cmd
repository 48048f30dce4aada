report --limit=5 tests/data/folded/bom-crlf.txt
