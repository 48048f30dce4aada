dump --view=sandwich --function=eval --width=100 --height=8 tests/data/folded/wide-total.folded
