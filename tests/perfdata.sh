#!/bin/sh
# perf.data: tflame runs perf script on it. Golden report and dump of a
# tiny committed recording, live recordings (skipped where perf cannot
# record), input perf must get as a file (stdin, gzip), and what happens
# when perf is missing, fails, refuses a field or talks a lot.

. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 99

if ! perf --version >/dev/null 2>&1; then
	echo "perf is not installed: perf.data tests skipped"
	exit 77
fi
data=tests/data/perfdata
fake=$top_srcdir/$data/fake-perf

# check NAME EXPECTED-FILE ARGS...: stdout, stderr and status match.
check() {
	name=$1 expected=$2
	shift 2
	"$TFLAME" "$@" >"$tmpdir/out" 2>"$tmpdir/err" </dev/null
	status=$?
	{
		cat "$tmpdir/out"
		if [ -s "$tmpdir/err" ]; then
			echo "--- stderr"
			cat "$tmpdir/err"
		fi
		echo "--- exit $status"
	} >"$tmpdir/actual"
	if [ -n "$TFLAME_UPDATE_GOLDEN" ]; then
		cp "$tmpdir/actual" "$expected"
		ok "$name (updated)"
	elif diff -u "$expected" "$tmpdir/actual" >"$tmpdir/diff"; then
		ok "$name"
	else
		not_ok "$name" "$(head -30 "$tmpdir/diff")"
	fi
}

# fails NAME PATTERN ARGS...: exit 1, one line on stderr matching PATTERN.
fails() {
	name=$1 pattern=$2
	shift 2
	"$TFLAME" "$@" >"$tmpdir/out" 2>"$tmpdir/err" </dev/null
	status=$?
	if [ "$status" -ne 1 ] || [ "$(wc -l <"$tmpdir/err")" -ne 1 ] ||
	   ! grep -q -- "$pattern" "$tmpdir/err"; then
		not_ok "$name" "exit $status" "$(head -3 "$tmpdir/err")"
	else
		ok "$name"
	fi
}

check "report of a committed recording" $data/tiny.report.expected \
	report --limit=6 $data/tiny.data
check "dump of a committed recording" $data/tiny.dump.expected \
	dump --width=100 --height=12 $data/tiny.data

# The same recording through stdin and gzip: perf reads a copy.
"$TFLAME" report --limit=6 - <$data/tiny.data >"$tmpdir/stdin.out" 2>&1
"$TFLAME" report --limit=6 $data/tiny.data >"$tmpdir/file.out" 2>&1
sed 1d "$tmpdir/stdin.out" >"$tmpdir/a"
sed 1d "$tmpdir/file.out" >"$tmpdir/b"
if cmp -s "$tmpdir/a" "$tmpdir/b"; then ok "stdin"; else not_ok "stdin" "$(diff "$tmpdir/a" "$tmpdir/b" | head)"; fi
gzip -c $data/tiny.data >"$tmpdir/tiny.data.gz"
"$TFLAME" report --limit=6 "$tmpdir/tiny.data.gz" 2>&1 | sed 1d >"$tmpdir/c"
if cmp -s "$tmpdir/c" "$tmpdir/b"; then ok "gzip"; else not_ok "gzip" "$(diff "$tmpdir/c" "$tmpdir/b" | head)"; fi
# No temporary copy is left behind.
TMPDIR=$tmpdir "$TFLAME" report - <$data/tiny.data >/dev/null 2>&1
if ls "$tmpdir" | grep -q '^tflame-'; then not_ok "temporary files removed"; else ok "temporary files removed"; fi

# perf missing, failing, killed, refusing a field, or chatty.
TFLAME_PERF=/nonexistent/perf
export TFLAME_PERF
fails "perf missing" "tiny.data: perf.data needs the perf tool (apt-get install linux-perf)" \
	report $data/tiny.data
TFLAME_PERF=$fake
FAKE_PERF_MODE=die
export FAKE_PERF_MODE
fails "perf fails" "tiny.data: perf script failed: failed to open perf.data: Permission denied" \
	report $data/tiny.data
FAKE_PERF_MODE=killed
fails "perf killed" "tiny.data: perf script was killed by signal 9" report $data/tiny.data
FAKE_PERF_MODE=refuse-period
if "$TFLAME" collapse $data/tiny.data 2>"$tmpdir/err" | grep -q '^main;leaf 1$' &&
   [ ! -s "$tmpdir/err" ]; then
	ok "a refused field is dropped"
else
	not_ok "a refused field is dropped" "$(head -3 "$tmpdir/err")"
fi
FAKE_PERF_MODE=chatty
if "$TFLAME" collapse $data/tiny.data 2>"$tmpdir/err" | grep -q '^main;leaf 7$'; then
	ok "much on perf's stderr does not block it"
else
	not_ok "much on perf's stderr does not block it" "$(head -3 "$tmpdir/err")"
fi
unset TFLAME_PERF FAKE_PERF_MODE
# A perf.data cut short loads up to the cut: tests/perfdata-cut.sh.

# Live recordings, where this machine lets perf record.
loop='i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'
if perf record -q -g -o "$tmpdir/live.data" -- sh -c "$loop" >/dev/null 2>&1; then
	if "$TFLAME" report "$tmpdir/live.data" >"$tmpdir/out" 2>&1 &&
	   grep -q '^format    perf.data$' "$tmpdir/out" && grep -q '^threads (1) by weight$' "$tmpdir/out"; then
		ok "a live recording with callchains"
	else
		not_ok "a live recording with callchains" "$(head -5 "$tmpdir/out")"
	fi
	# The pipe format of perf record -o -.
	if perf record -q -o - -- sh -c "$loop" 2>/dev/null >"$tmpdir/pipe.data" &&
	   "$TFLAME" report - <"$tmpdir/pipe.data" >"$tmpdir/out" 2>&1 &&
	   grep -q '^format    perf.data$' "$tmpdir/out"; then
		ok "the pipe format"
	else
		not_ok "the pipe format" "$(head -5 "$tmpdir/out")"
	fi
	if perf record -q -e task-clock/period=100000/ -e page-faults/period=1/ \
	   -o "$tmpdir/two.data" \
	   -- sh -c "$loop" >/dev/null 2>&1; then
		if "$TFLAME" report "$tmpdir/two.data" 2>&1 | grep -q '^profiles  2: '; then
			ok "two events, no callchains"
		else
			not_ok "two events, no callchains"
		fi
	fi
	if perf record -q -e sched:sched_process_exec -g -o "$tmpdir/tp.data" \
	   -- sh -c 'ls >/dev/null' >/dev/null 2>&1; then
		if "$TFLAME" report "$tmpdir/tp.data" 2>&1 | grep -q 'sched:sched_process_exec'; then
			ok "a tracepoint"
		else
			not_ok "a tracepoint"
		fi
	fi
else
	echo "# perf cannot record here: live recordings skipped"
fi
finish
