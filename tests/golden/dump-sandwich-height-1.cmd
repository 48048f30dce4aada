dump --view=sandwich --height=1 --width=60 '--function=^main$' data/sample.perf.txt
