dump --width=100 --height=10 tests/data/heapprofile/alloc.heapprofile
