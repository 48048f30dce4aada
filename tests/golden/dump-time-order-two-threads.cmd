dump --view=time-order --width=80 --height=4 tests/data/chrome/two-threads.json
