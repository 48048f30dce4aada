collapse tests/data/recorded/no-callchain.txt
