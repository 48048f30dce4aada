dump --no-symbols --by-process --view=sandwich --width=100 --height=12 --search=filemap_map_pages tests/data/perf/procs-pid.txt
