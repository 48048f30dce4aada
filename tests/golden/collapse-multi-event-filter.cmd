collapse --event-filter=sched:sched_switch --tid tests/data/recorded/multi-event.txt
