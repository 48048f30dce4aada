report --limit=5 tests/data/pprof/heap.pb
