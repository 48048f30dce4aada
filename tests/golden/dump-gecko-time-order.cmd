dump --view=time-order --width=80 --height=14 tests/data/gecko/raw-processes.json
