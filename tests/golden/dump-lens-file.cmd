dump --width=60 --height=6 --lens=tests/data/lens/triage.lens tests/data/folded/recursion.txt
