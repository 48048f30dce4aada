dump --view=time-order --width=80 --height=3 tests/data/heapprofile/alloc.heapprofile
