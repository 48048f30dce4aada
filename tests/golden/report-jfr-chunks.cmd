report tests/data/jfr/chunks.jfr.gz
