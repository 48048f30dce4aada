report --limit=0 --no-demangle tests/data/folded/mangled.txt
