dump --view=time-order --width=60 --height=3 tests/data/diff/base.folded tests/data/diff/new.folded
