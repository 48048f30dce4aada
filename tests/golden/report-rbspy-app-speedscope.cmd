report --limit=0 tests/data/rbspy/app.speedscope.json
