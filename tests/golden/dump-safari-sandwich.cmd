dump --view=sandwich --width=80 --height=8 tests/data/safari/gaps-recording.json
