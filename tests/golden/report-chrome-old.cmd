report tests/data/chrome/old.cpuprofile
