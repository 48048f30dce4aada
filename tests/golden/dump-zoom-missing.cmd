dump --width=30 --height=4 --zoom='no;such;path' tests/data/folded/basic.txt
