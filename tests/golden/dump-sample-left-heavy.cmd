dump --width=100 --height=14 data/sample.perf.txt
