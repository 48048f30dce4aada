dump --view=time-order --width=80 --height=4 --search=worker data/sample.perf.txt
