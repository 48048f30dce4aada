report --limit=0 --event=INST_RETIRED_ANY tests/data/pmcstat/two-events.txt
