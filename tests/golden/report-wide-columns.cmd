report tests/data/chrome/wide-tid.json
