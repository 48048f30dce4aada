report tests/data/foreign/firefox.json
