dump --view=time-order --width=100 --height=14 tests/data/v8log/prog.v8log.json
