dump --width=100 --height=6 --search=lex tests/data/folded/wide-total.folded
