report --lines tests/data/folded/basic.txt
