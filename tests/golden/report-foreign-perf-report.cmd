report tests/data/foreign/perf-report.txt
