export --diff --no-symbols tests/data/diff/base.folded tests/data/diff/json-dumps.perf.txt
