dump --width=60 --height=6 tests/data/diff/base.folded tests/data/diff/new.folded
