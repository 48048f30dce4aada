dump --view=sandwich --width=80 --height=5 --function='^\[liblzma' tests/data/perf/unnamed.txt
