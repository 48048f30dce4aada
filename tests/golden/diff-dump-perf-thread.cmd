dump --no-symbols --thread=30898 --width=60 --height=2 tests/data/diff/json-dumps.perf.txt tests/data/diff/json-dumps-loads.perf.txt
