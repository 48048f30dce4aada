dump --view=sandwich --function=fib --width=60 --height=12 tests/data/diff/base.folded tests/data/diff/new.folded
