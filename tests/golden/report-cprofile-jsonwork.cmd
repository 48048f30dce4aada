report --limit=10 tests/data/cprofile/jsonwork.prof
