report --lines --thread=12068 --search=spin tests/data/recorded/srcline.txt
