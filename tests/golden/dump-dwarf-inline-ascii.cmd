dump --ascii --width=60 --height=8 tests/data/recorded/dwarf-inline.txt
