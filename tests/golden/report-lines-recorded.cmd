report --lines --limit=8 --event=cpu-clock tests/data/recorded/srcline.txt
