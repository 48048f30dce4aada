report --limit=5 tests/data/recorded/srcline.txt
