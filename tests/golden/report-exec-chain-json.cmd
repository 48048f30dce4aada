report --no-symbols --json --limit=2 tests/data/recorded/exec-chain.txt
