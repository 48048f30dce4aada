report --limit=6 tests/data/recorded/two-builds.txt
