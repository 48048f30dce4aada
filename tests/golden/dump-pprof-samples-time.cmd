dump --view=time-order --width=60 --height=2 --event=samples/count tests/data/pprof/cpu.pb.gz
