report --limit=5 --event=alloc_objects/count tests/data/pprof/heap.pb
