report --diff --no-symbols --limit=6 tests/data/diff/build-base.perf.txt tests/data/diff/build-new.perf.txt
