report --limit=5 - < tests/data/cprofile/v1.prof
