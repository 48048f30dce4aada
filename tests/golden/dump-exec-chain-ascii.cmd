dump --no-symbols --ascii --view=time-order --width=80 --height=2 tests/data/recorded/exec-chain.txt
