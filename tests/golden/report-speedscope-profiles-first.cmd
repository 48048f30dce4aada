report tests/data/speedscope/profiles-first.speedscope.json
