dump --view=time-order --width=80 --height=8 tests/data/chrome/trace.json
