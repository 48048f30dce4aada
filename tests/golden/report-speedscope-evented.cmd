report tests/data/speedscope/evented.speedscope.json
