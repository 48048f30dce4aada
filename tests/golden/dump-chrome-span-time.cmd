dump --view=time-order --width=80 --height=6 tests/data/chrome/span.json
