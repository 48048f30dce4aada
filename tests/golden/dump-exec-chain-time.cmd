dump --no-symbols --view=time-order --width=100 --height=3 tests/data/recorded/exec-chain.txt
