report --event=bytes tests/data/speedscope/evented.speedscope.json
