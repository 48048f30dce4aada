report --limit=12 tests/data/chrome/app.cpuprofile
