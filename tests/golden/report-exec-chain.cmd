report --no-symbols --limit=3 tests/data/recorded/exec-chain.txt
