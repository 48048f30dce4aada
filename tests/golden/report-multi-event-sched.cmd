report --limit=5 --event=sched:sched_switch tests/data/recorded/multi-event.txt
