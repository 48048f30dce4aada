dump --view=time-order --width=100 --height=6 tests/data/cprofile/jsonwork.prof
