export --to=speedscope --pid=4581 tests/data/recorded/multi-process.txt
