export --to=folded --by-process --zoom='python3-4581' tests/data/recorded/multi-process.txt
