report --limit=3 --event=sched_switch tests/data/recorded/event-names.txt
