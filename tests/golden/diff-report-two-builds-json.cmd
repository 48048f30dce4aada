report --diff --no-symbols --limit=3 --json tests/data/diff/build-base.perf.txt tests/data/diff/build-new.perf.txt
