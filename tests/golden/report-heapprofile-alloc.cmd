report --limit=8 tests/data/heapprofile/alloc.heapprofile
