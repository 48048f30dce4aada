report tests/data/chrome/embedded.json
