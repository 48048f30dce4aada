report tests/data/cprofile/bigint.prof
