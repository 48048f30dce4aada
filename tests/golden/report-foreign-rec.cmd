report tests/data/foreign/rec.jfr
