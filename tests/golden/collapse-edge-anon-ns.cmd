collapse --all tests/data/perf/anon-ns.txt
