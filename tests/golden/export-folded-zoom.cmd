export --to=folded --pid=4580 --zoom='python3;[unknown]' tests/data/recorded/multi-process.txt
