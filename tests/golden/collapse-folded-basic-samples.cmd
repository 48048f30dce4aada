collapse --weight=samples tests/data/folded/basic.txt
