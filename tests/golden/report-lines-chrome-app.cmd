report --lines --limit=10 tests/data/chrome/app.cpuprofile
