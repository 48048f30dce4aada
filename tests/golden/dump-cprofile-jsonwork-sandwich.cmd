dump --view=sandwich --width=120 --height=8 tests/data/cprofile/jsonwork.prof
