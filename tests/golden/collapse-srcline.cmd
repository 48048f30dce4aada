collapse --srcline tests/data/recorded/srcline.txt
