collapse --pid tests/data/recorded/exec-chain.txt
