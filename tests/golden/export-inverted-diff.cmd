export --diff --inverted tests/data/diff/base.folded tests/data/diff/new.folded
