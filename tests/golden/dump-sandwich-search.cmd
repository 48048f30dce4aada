dump --view=sandwich --height=4 --width=60 --search=mem --comm=demo data/sample.perf.txt
