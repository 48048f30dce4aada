collapse --lens=tests/data/lens/triage.lens tests/data/folded/recursion.txt
