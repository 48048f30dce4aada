report --diff --limit=3 --fail-above=20 tests/data/diff/base.folded tests/data/diff/new.folded
