collapse tests/data/papyrus/quest.log
