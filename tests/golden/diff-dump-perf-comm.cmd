dump --no-symbols --comm=python3 --width=80 --height=2 tests/data/diff/json-dumps.perf.txt tests/data/diff/json-dumps-loads.perf.txt
