collapse --all tests/data/recorded/system-wide.txt
