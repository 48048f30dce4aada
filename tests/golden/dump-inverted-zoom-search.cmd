dump --ascii --width=60 --height=6 --inverted --zoom='lex;expr' --search=expr tests/data/folded/inverted.txt
