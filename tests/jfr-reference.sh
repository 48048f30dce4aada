#!/bin/sh
# Every JFR number agrees with the JDK's own reader: for each recording in
# tests/data/jfr (one of them of two chunks), `tflame collapse --event=T` equals the
# folded stacks tests/jfr-folded.py computes from `jfr print --json` for
# every event type T tflame reads: every stack, frame name and weight.
# Skipped (77) without the JDK's jfr tool or python3. With arguments, the
# recordings named instead (tests/corpus.sh gives the corpus's).

. "$top_srcdir/tests/lib.sh"

data=$top_srcdir/tests/data/jfr
if ! command -v jfr >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	echo "skipped: needs the JDK's jfr tool and python3"
	exit 77
fi

# The JDK's tool reads plain files: gunzip the recorded ones.
if [ $# -eq 0 ]; then
	for f in alloc deep chunks; do
		gunzip -c "$data/$f.jfr.gz" >"$tmpdir/$f.jfr" || exit 99
		set -- "$@" "$tmpdir/$f.jfr"
	done
	counts="$tmpdir/alloc.jfr $tmpdir/chunks.jfr"
else
	counts="$*"
fi

for file in "$@"; do
	f=$(basename "$file" .jfr)
	# The event types tflame found, from report --json.
	types=$("$TFLAME" report --json "$file" 2>/dev/null |
		python3 -c 'import json,sys; [print(p["name"]) for p in json.load(sys.stdin)["profiles"]]')
	if [ -z "$types" ]; then
		not_ok "$f: profiles" "tflame found none"
		continue
	fi
	for t in $types; do
		jfr print --json --stack-depth 4096 --events "$t" "$file" >"$tmpdir/ev.json" || exit 99
		python3 "$top_srcdir/tests/jfr-folded.py" "$tmpdir/ev.json" "$t" |
			LC_ALL=C sort >"$tmpdir/want"
		"$TFLAME" collapse --event="$t" "$file" 2>/dev/null | LC_ALL=C sort >"$tmpdir/got"
		if [ ! -s "$tmpdir/want" ]; then
			not_ok "$f $t" "jfr print gave no events"
		elif diff -u "$tmpdir/want" "$tmpdir/got" >"$tmpdir/diff"; then
			ok "$f $t: $(wc -l <"$tmpdir/want") stacks as jfr print reads them"
		else
			not_ok "$f $t" "$(head -20 "$tmpdir/diff")"
		fi
	done
done

# Every event type the JDK counts is one tflame read, with as many samples
# (the allocations with a zero weight aside, of which these have none).
for file in $counts; do
	f=$(basename "$file" .jfr)
	jfr summary "$file" >"$tmpdir/summary" || exit 99
	"$TFLAME" report --json "$file" 2>/dev/null >"$tmpdir/report.json" || exit 99
	if python3 - "$tmpdir/summary" "$tmpdir/report.json" <<'PY'
import json, sys
want = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3 and f[0] in ("jdk.ExecutionSample", "jdk.NativeMethodSample",
                                "jdk.ObjectAllocationInNewTLAB",
                                "jdk.ObjectAllocationOutsideTLAB",
                                "jdk.ObjectAllocationSample") and int(f[1]):
        want[f[0]] = int(f[1])
got = {p["name"]: p["samples"] for p in json.load(open(sys.argv[2]))["profiles"]}
if want != got:
    print("jfr summary %s, tflame %s" % (want, got))
    sys.exit(1)
PY
	then
		ok "$f: event counts as jfr summary gives them"
	else
		not_ok "$f: event counts as jfr summary gives them"
	fi
done
finish
