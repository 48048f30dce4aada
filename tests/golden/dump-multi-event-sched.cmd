dump --width=100 --height=6 --event=sched:sched_switch tests/data/recorded/multi-event.txt
