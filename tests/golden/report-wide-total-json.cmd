report --json tests/data/folded/wide-total.folded
