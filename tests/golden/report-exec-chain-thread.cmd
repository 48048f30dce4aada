report --no-symbols --thread=24115 --limit=3 tests/data/recorded/exec-chain.txt
