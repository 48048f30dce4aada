dump --width=60 --height=4 --transform=drop-function:main tests/data/folded/recursion.txt
