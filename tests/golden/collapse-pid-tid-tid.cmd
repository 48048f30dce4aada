collapse --tid tests/data/recorded/pid-tid-period.txt
