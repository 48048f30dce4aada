report --limit=5 tests/data/pprof/cpu.pb.gz
