dump --width=70 --height=8 tests/data/callgrind/rec.callgrind
