dump --view=sandwich --width=72 --height=4 --function=expr --transform=collapse-direct-recursion:expr tests/data/folded/recursion.txt
