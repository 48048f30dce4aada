collapse tests/data/instruments/time-7.txt
