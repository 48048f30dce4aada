dump --view=sandwich --addrs --width=80 --height=5 --function='^\[liblzma.*3b2f0' tests/data/perf/unnamed.txt
