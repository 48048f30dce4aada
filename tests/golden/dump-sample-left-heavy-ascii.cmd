dump --ascii --width=80 --height=22 data/sample.perf.txt
