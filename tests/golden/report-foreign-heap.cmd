report tests/data/foreign/heap.heapsnapshot
