dump --no-symbols --time=0,50% --width=60 --height=3 tests/data/diff/json-dumps.perf.txt tests/data/diff/json-dumps-loads.perf.txt
