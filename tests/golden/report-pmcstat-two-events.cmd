report --limit=0 tests/data/pmcstat/two-events.txt
