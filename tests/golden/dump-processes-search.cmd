dump --width=80 --height=4 --search='^xz$' tests/data/perf/processes.txt
