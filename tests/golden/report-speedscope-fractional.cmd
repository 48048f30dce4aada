report tests/data/speedscope/fractional.speedscope.json
