report --lines --json --limit=4 tests/data/pprof/cpu.pb.gz
