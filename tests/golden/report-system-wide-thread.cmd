report --limit=5 --thread=0 tests/data/recorded/system-wide.txt
