report tests/data/jfr/cut-header.jfr
