collapse --pid tests/data/recorded/pid-tid-period.txt
