report --diff --no-symbols --ignore-module --limit=3 --json tests/data/diff/json-dumps.perf.txt tests/data/diff/json-dumps-loads.perf.txt
