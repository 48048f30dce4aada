report --limit=3 --pid=12066 --search=schedule tests/data/recorded/pid-tid-period.txt
