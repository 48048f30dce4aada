dump --width=60 --height=6 tests/data/pprof/cpu.pb.gz
