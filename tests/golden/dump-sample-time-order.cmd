dump --view=time-order --width=100 --height=8 data/sample.perf.txt
