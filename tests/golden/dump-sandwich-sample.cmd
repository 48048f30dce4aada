dump --view=sandwich --height=6 --width=90 data/sample.perf.txt
