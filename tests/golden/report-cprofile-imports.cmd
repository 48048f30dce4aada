report --limit=8 tests/data/cprofile/imports.prof
