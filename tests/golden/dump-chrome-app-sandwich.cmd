dump --view=sandwich --width=120 --height=12 tests/data/chrome/app.cpuprofile
