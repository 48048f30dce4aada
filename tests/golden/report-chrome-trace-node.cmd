report tests/data/chrome/trace-node.json
