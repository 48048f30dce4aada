dump --view=sandwich --function=nothing_like_this data/sample.perf.txt
