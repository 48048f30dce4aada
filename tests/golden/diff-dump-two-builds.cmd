dump --view=sandwich --no-symbols --function=parse --width=100 --height=14 tests/data/diff/build-base.perf.txt tests/data/diff/build-new.perf.txt
