dump --view=sandwich --width=90 --height=10 tests/data/recorded/two-builds.txt
