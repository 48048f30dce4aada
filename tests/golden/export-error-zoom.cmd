export --zoom='main;nothere' tests/data/folded/basic.txt
