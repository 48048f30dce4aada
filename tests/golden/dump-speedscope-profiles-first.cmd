dump --width=80 --height=8 --comm='^thread 2' tests/data/speedscope/profiles-first.speedscope.json
