export --to=speedscope --by-process --pid=4582 tests/data/recorded/multi-process.txt
