dump --view=time-order --width=100 --height=12 tests/data/stackprof/wall.json
