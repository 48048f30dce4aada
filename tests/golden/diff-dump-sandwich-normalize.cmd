dump --view=sandwich --normalize --function=^render --width=60 --height=5 tests/data/diff/base.folded tests/data/diff/new.folded
