#!/bin/sh
# Run the libFuzzer targets built by ./configure --enable-fuzzing, each for
# a bounded time, on a corpus seeded from the test files.
#
#	fuzz/run.sh SRCDIR BUILDDIR SECONDS [TARGET...]
#
# With FUZZ_RUNS set in the environment, each target stops after that many
# inputs (or SECONDS, whichever comes first) and mutates from the fixed seed
# FUZZ_SEED (default 1): from a fresh corpus such a run tries the same
# inputs every time, so CI's verdict does not depend on luck or load.
#
# The targets run FUZZ_JOBS at a time (default: one per processor), each
# one process; their reports are printed in order once all are done.
#
# Corpora live in BUILDDIR/fuzz/corpus/TARGET and grow from run to run.
# A crash leaves its input as BUILDDIR/fuzz/crash-* and fails the run;
# once fixed, copy the input to tests/fuzz-regressions/TARGET/ so that
# make check replays it.
set -u
src=$1 build=$2 secs=$3
shift 3
targets=${*:-fuzz_perf fuzz_folded fuzz_cprofile fuzz_speedscope fuzz_chrome fuzz_gecko \
	fuzz_safari fuzz_pprof fuzz_callgrind fuzz_import fuzz_jfr fuzz_instruments fuzz_pmcstat \
	fuzz_papyrus fuzz_stackprof fuzz_heapprofile fuzz_ghc fuzz_v8log fuzz_perfdata_read}
status=0
limits="-max_total_time=$secs"
if [ -n "${FUZZ_RUNS:-}" ]; then
	limits="$limits -runs=$FUZZ_RUNS -seed=${FUZZ_SEED:-1}"
fi

# seed DIR FILES...: copy files into a corpus directory.
seed() {
	dir=$1
	shift
	mkdir -p "$dir"
	for f in "$@"; do
		[ -f "$f" ] && cp "$f" "$dir/seed-$(echo "$f" | tr '/' '_')"
	done
}

# fuzz_one TARGET: seed its corpus, run it, report on stdout; non-zero
# when the seeding or the target failed.
fuzz_one() {
	t=$1
	status=0
	corpus=$build/fuzz/corpus/$t
	mkdir -p "$corpus"
	case $t in
	fuzz_perf) seed "$corpus" "$src"/tests/data/perf/* "$src"/tests/data/recorded/* \
			"$src"/tests/fuzz-regressions/perf/* ;;
	fuzz_folded) seed "$corpus" "$src"/tests/data/folded/* "$src"/tests/fuzz-regressions/folded/* ;;
	fuzz_cprofile) seed "$corpus" "$src"/tests/data/cprofile/*.prof \
			"$src"/tests/fuzz-regressions/cprofile/* ;;
	fuzz_speedscope) seed "$corpus" "$src"/tests/data/speedscope/* \
			"$src"/tests/fuzz-regressions/speedscope/* ;;
	fuzz_chrome) seed "$corpus" "$src"/tests/data/chrome/*.json "$src"/tests/data/chrome/*.cpuprofile \
			"$src"/tests/fuzz-regressions/chrome/* ;;
	fuzz_gecko) seed "$corpus" "$src"/tests/data/gecko/*.json "$src"/tests/fuzz-regressions/gecko/* ;;
	fuzz_safari) seed "$corpus" "$src"/tests/data/safari/*.json \
			"$src"/tests/fuzz-regressions/safari/* ;;
	fuzz_pprof)
		# The decoder reads protobuf as it is: gunzip the gzipped seeds.
		seed "$corpus" "$src"/tests/data/pprof/*.pb "$src"/tests/fuzz-regressions/pprof/*
		for f in "$src"/tests/data/pprof/*.pb.gz; do
			[ -f "$f" ] && gzip -dc "$f" >"$corpus/seed-$(basename "$f" .gz)"
		done ;;
	fuzz_callgrind) seed "$corpus" "$src"/tests/data/callgrind/*.callgrind \
			"$src"/tests/fuzz-regressions/callgrind/* ;;
	fuzz_jfr)
		# Recordings are bigger than -max_len: small generated ones.
		seed "$corpus" "$src"/tests/data/jfr/*.jfr "$src"/tests/fuzz-regressions/jfr/*
		for n in 1 2 3; do
			python3 "$src/bench/gen-jfr.py" --events $((n * 20)) --seed $n \
				"$corpus/seed-gen-$n.jfr" || status=1
		done ;;
	fuzz_instruments|fuzz_pmcstat|fuzz_papyrus)
		fmt=${t#fuzz_}
		seed "$corpus" "$src"/tests/data/"$fmt"/* "$src"/tests/fuzz-regressions/"$fmt"/* ;;
	fuzz_stackprof) seed "$corpus" "$src"/tests/data/stackprof/*.json \
			"$src"/tests/fuzz-regressions/stackprof/* ;;
	fuzz_heapprofile) seed "$corpus" "$src"/tests/data/heapprofile/*.heapprofile \
			"$src"/tests/fuzz-regressions/heapprofile/* ;;
	fuzz_ghc) seed "$corpus" "$src"/tests/data/ghc/*.prof "$src"/tests/fuzz-regressions/ghc/* ;;
	fuzz_v8log) seed "$corpus" "$src"/tests/data/v8log/*.json "$src"/tests/fuzz-regressions/v8log/* ;;
	fuzz_perfdata_read) seed "$corpus" "$src"/tests/data/perfdata/*.data \
			"$src"/tests/fuzz-regressions/perf.data-native/* ;;
	fuzz_import)
		# A leading 0xff byte: probe the content rather than force a format.
		find "$src/tests/data" "$src/tests/fuzz-regressions" -type f -size -256k \
			! -name '*.data' | while read -r f; do
			out=$corpus/seed-$(echo "${f#"$src"/}" | tr '/' '_')
			{ printf '\377'; cat "$f"; } >"$out"
		done ;;
	esac
	echo "fuzz: $t for ${secs}s ($(ls "$corpus" | wc -l) inputs in the corpus)"
	(cd "$build/fuzz" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"./$t" $limits -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 "corpus/$t" 2>"$t.log")
	rc=$?
	grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)' "$build/fuzz/$t.log"
	if [ $rc -ne 0 ]; then
		echo "fuzz: $t FAILED (exit $rc); the end of its log:"
		tail -40 "$build/fuzz/$t.log"
		status=1
	fi
	return $status
}

# Lane i of n runs the i-th, (i+n)-th... targets one after another.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
mkdir -p "$build/fuzz"
rm -f "$build"/fuzz/*.report.failed
lane=0
while [ $lane -lt "$jobs" ]; do
	(
		i=0
		for t in $targets; do
			if [ $((i % jobs)) -eq $lane ]; then
				fuzz_one "$t" >"$build/fuzz/$t.report" 2>&1 ||
					echo failed >>"$build/fuzz/$t.report.failed"
			fi
			i=$((i + 1))
		done
	) &
	lane=$((lane + 1))
done
wait

status=0
for t in $targets; do
	cat "$build/fuzz/$t.report"
	if [ -e "$build/fuzz/$t.report.failed" ]; then
		status=1
		rm -f "$build/fuzz/$t.report.failed"
	fi
done
exit $status
