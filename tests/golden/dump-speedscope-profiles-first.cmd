dump --width=80 --height=8 --event='thread 2' tests/data/speedscope/profiles-first.speedscope.json
