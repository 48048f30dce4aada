dump --width=100 --height=10 --inverted --event=cpu-clock tests/data/recorded/multi-event.txt
