collapse --weight=samples tests/data/recorded/dwarf-inline.txt
