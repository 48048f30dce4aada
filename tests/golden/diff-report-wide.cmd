report --diff tests/data/diff/wide-base.folded tests/data/diff/wide-new.folded
