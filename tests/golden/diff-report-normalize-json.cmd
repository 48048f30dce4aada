report --diff --normalize --json tests/data/diff/base.folded tests/data/diff/new.folded
