report tests/data/chrome/old-timestamps.cpuprofile
