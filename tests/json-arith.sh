#!/bin/sh
# The numbers of JSON profiles against the file's own arithmetic: for each
# file recorded (or written) under tests/data, tests/json-arith.py computes
# the weight, the time span and every function's self and total from the
# JSON with exact decimals, and compares them with tflame report --json.
# Skipped (77) without python3.

. "$top_srcdir/tests/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo "python3 not found: skipping the comparison with the files' arithmetic"
	exit 77
fi

check_file() {
	kind=$1 file=$top_srcdir/tests/data/$2
	if ! "$TFLAME" report --json --limit=0 "$file" >"$tmpdir/report.json" 2>"$tmpdir/err"; then
		not_ok "$2: tflame report" "$(cat "$tmpdir/err")"
	elif python3 "$top_srcdir/tests/json-arith.py" "$kind" "$file" "$tmpdir/report.json" \
		>"$tmpdir/out" 2>&1; then
		ok "$2: $(tail -1 "$tmpdir/out" | sed 's/^[^:]*: //')"
	else
		not_ok "$2: as the file adds up" "$(cat "$tmpdir/out")"
	fi
}

# Evented, microseconds with digits below the ns (gen-evented.js).
check_file speedscope speedscope/fractional.speedscope.json
# node --trace-event-categories: B/E pairs with X events inside.
check_file trace chrome/trace-node.json
# A 100 ms event whose last child starts at 90 ms.
check_file trace chrome/span.json
# node --cpu-prof, and the old head form with timestamps (gen-old.py).
check_file cpuprofile chrome/fib.cpuprofile
check_file cpuprofile chrome/old-timestamps.cpuprofile
# Anonymous functions (app.js): the module wrapper, a sort comparator and
# two arrows of one line, each a function of its own.
check_file cpuprofile chrome/app.cpuprofile
# Gecko profiles: a DevTools recording (and as speedscope shows it), raw
# with a child process, processed as Python's sampler and samply write
# them, and perf's samples as perf script report gecko writes them.
check_file gecko gecko/devtools.json
check_file gecko-js gecko/devtools.json
check_file gecko gecko/raw-processes.json
check_file gecko gecko/python-sampling.json
check_file gecko gecko/samply.json
check_file gecko gecko/perf-script.json
# Safari: an idle gap, noise, anonymous and recursive frames.
check_file safari safari/gaps-recording.json

finish
