collapse tests/data/recorded/multi-event.txt
