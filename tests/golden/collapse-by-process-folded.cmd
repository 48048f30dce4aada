collapse --by-process tests/data/folded/basic.txt
