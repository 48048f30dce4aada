export --to=folded --inverted --zoom='lex;expr' tests/data/folded/inverted.txt
