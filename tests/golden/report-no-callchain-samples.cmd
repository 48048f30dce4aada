report --limit=5 --weight=samples tests/data/recorded/no-callchain.txt
