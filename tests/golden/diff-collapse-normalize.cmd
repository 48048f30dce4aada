collapse --diff --normalize tests/data/diff/base.folded tests/data/diff/new.folded
