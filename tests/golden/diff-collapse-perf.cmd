collapse --diff --normalize tests/data/diff/json-dumps.perf.txt tests/data/diff/json-dumps-loads.perf.txt
