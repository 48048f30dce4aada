report --limit=5 tests/data/recorded/pid-tid-period.txt
