report --event=jdk.ObjectAllocationInNewTLAB tests/data/jfr/alloc.jfr.gz
