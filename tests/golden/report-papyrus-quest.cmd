report --limit=0 tests/data/papyrus/quest.log
