report --limit=4 --diff tests/data/recorded/two-builds.txt tests/data/recorded/multi-process.txt
