dump --swap tests/data/diff/new.folded
