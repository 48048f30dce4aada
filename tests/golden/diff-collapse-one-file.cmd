collapse --diff tests/data/diff/base.folded
