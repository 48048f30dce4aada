report --limit=0 tests/data/rbspy/app.collapsed.txt
