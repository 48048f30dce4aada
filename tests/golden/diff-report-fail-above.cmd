report --diff --limit=3 --fail-above=15 tests/data/diff/base.folded tests/data/diff/new.folded
