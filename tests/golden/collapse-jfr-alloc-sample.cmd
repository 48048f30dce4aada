collapse --event=jdk.ObjectAllocationSample tests/data/jfr/alloc.jfr.gz
