report --diff --no-symbols --limit=6 tests/data/diff/json-dumps.perf.txt tests/data/diff/json-dumps-loads.perf.txt
