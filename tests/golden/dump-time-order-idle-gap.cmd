dump --view=time-order --width=80 tests/data/perf/idle-gap.txt
