dump --inverted --width=60 --height=4 tests/data/diff/base.folded tests/data/diff/new.folded
