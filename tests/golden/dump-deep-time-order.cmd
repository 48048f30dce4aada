dump --view=time-order --width=80 --height=130 tests/data/chrome/deep.cpuprofile
