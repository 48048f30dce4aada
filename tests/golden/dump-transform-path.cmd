dump --width=60 --height=6 '--transform=focus-subtree:main;parse;expr' '--transform=merge-call-node:expr;term' tests/data/folded/recursion.txt
