report tests/data/chrome/trace.json
