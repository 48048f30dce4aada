report --event='main thread (2)' tests/data/speedscope/evented.speedscope.json
