report --no-symbols '--comm=^sh$' --limit=3 tests/data/recorded/exec-chain.txt
