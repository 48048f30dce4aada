dump --width=72 --height=6 --time=,10% data/sample.perf.txt
