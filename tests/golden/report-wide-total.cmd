report tests/data/folded/wide-total.folded
