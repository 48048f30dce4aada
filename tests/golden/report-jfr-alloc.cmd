report tests/data/jfr/alloc.jfr.gz
