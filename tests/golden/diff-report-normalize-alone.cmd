report --normalize tests/data/diff/base.folded
