export --to=svg --icicle --colors=kind tests/data/perf/kernel-jit.txt
