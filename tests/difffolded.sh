#!/bin/sh
# collapse --diff against FlameGraph's difffolded.pl itself: on folded
# pairs, the script's lines sorted (it writes them in hash order) must be
# tflame's, with and without -n / --normalize. With stackcollapse-perf.pl
# too ($STACKCOLLAPSE_PERF), perf script pairs go through both pipelines:
# stackcollapse-perf.pl then difffolded.pl, against collapse --diff. The
# script is $DIFFFOLDED_PL, or difffolded.pl on the PATH; without it (or
# without perl) this is skipped (77) and the goldens, checked against it
# when they were written, stand for it.

. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 99

ref=${DIFFFOLDED_PL:-$(command -v difffolded.pl 2>/dev/null)}
if [ -z "$ref" ] || [ ! -f "$ref" ]; then
	echo "no difffolded.pl (set DIFFFOLDED_PL): skipped"
	exit 77
fi
command -v perl >/dev/null 2>&1 || { echo "no perl: skipped"; exit 77; }
collapse_ref=${STACKCOLLAPSE_PERF:-$(command -v stackcollapse-perf.pl 2>/dev/null)}

compare() { # name, base folded, new folded, tflame's base, tflame's new
	for n in "" -n; do
		# shellcheck disable=SC2086
		perl "$ref" $n "$2" "$3" | LC_ALL=C sort >"$tmpdir/expected"
		"$TFLAME" collapse --diff ${n:+--normalize} "$4" "$5" >"$tmpdir/actual" 2>"$tmpdir/err"
		status=$?
		if [ $status -ne 0 ]; then
			not_ok "$1${n:+ $n}" "exit $status" "$(head -3 "$tmpdir/err")"
		elif cmp -s "$tmpdir/expected" "$tmpdir/actual"; then
			ok "$1${n:+ $n}"
		else
			not_ok "$1${n:+ $n}" "$(diff "$tmpdir/expected" "$tmpdir/actual" | head -10)"
		fi
	done
}

d=tests/data/diff
compare "folded pair" $d/base.folded $d/new.folded $d/base.folded $d/new.folded
compare "folded pair, swapped" $d/new.folded $d/base.folded $d/new.folded $d/base.folded
compare "a file against itself" $d/base.folded $d/base.folded $d/base.folded $d/base.folded

if [ -n "$collapse_ref" ] && [ -f "$collapse_ref" ]; then
	for pair in "$d/json-dumps.perf.txt $d/json-dumps-loads.perf.txt" \
		    "tests/data/recorded/multi-process.txt tests/data/recorded/system-wide.txt" \
		    "$d/build-base.perf.txt $d/build-new.perf.txt" \
		    "$d/stripped-base.perf.txt $d/stripped-new.perf.txt"; do
		set -- $pair
		perl "$collapse_ref" "$1" >"$tmpdir/base.folded" 2>/dev/null
		perl "$collapse_ref" "$2" >"$tmpdir/new.folded" 2>/dev/null
		compare "perf: ${1##*/} ${2##*/}" "$tmpdir/base.folded" "$tmpdir/new.folded" "$1" "$2"
	done
	# Two builds at two paths (tests/data/diff/build-prog.c, recorded
	# with perf record -g): report --diff matches them by name by itself,
	# and each function's self, base and new, is the sum of difffolded.pl's
	# lines that end in it.
	perl "$collapse_ref" $d/build-base.perf.txt >"$tmpdir/base.folded" 2>/dev/null
	perl "$collapse_ref" $d/build-new.perf.txt >"$tmpdir/new.folded" 2>/dev/null
	perl "$ref" "$tmpdir/base.folded" "$tmpdir/new.folded" >"$tmpdir/diff.folded"
	"$TFLAME" report --diff --limit=0 --json $d/build-base.perf.txt $d/build-new.perf.txt \
		>"$tmpdir/report.json" 2>"$tmpdir/err"
	if ! command -v python3 >/dev/null 2>&1; then
		echo "# no python3: two builds' report --diff not compared"
	elif python3 - "$tmpdir/diff.folded" "$tmpdir/report.json" >"$tmpdir/out" 2>&1 <<'PY'
import json, sys
leaf = {}
for line in open(sys.argv[1]):
    stack, base, new = line.rsplit(None, 2)
    w = leaf.setdefault(stack.split(";")[-1], [0, 0])
    w[0] += int(base)
    w[1] += int(new)
report = json.load(open(sys.argv[2]))
assert report["ignore_module"] and report["ignore_module_auto"], "not matched by name"
rows = {f["name"]: [f["base_self"], f["new_self"]] for f in report["functions"]}
bad = [n for n in rows if rows[n] != leaf.get(n, [0, 0])]
bad += [n for n in leaf if leaf[n][0] != leaf[n][1] and rows.get(n) != leaf[n]]
for n in bad:
    print(n, "report", rows.get(n), "difffolded.pl", leaf.get(n))
print(len(rows), "functions agree")
sys.exit(1 if bad else 0)
PY
	then
		ok "two builds: report --diff by name, each self as difffolded.pl's ($(tail -1 "$tmpdir/out"))"
	else
		not_ok "two builds: report --diff as difffolded.pl" "$(cat "$tmpdir/out" "$tmpdir/err")"
	fi
else
	echo "# no stackcollapse-perf.pl (STACKCOLLAPSE_PERF): perf pairs not compared"
fi
finish
