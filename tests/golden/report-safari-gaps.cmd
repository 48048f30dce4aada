report --limit=0 tests/data/safari/gaps-recording.json
