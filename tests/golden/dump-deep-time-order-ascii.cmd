dump --view=time-order --ascii --width=80 --height=130 tests/data/chrome/deep.cpuprofile
