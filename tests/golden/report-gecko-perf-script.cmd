report --limit=0 tests/data/gecko/perf-script.json
