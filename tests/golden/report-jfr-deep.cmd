report tests/data/jfr/deep.jfr.gz
