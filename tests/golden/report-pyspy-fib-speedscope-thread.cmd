report --limit=0 --event='Thread 4251 "Thread-1"' tests/data/pyspy/fib.speedscope.json
