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
		    "tests/data/recorded/multi-process.txt tests/data/recorded/system-wide.txt"; do
		set -- $pair
		perl "$collapse_ref" "$1" >"$tmpdir/base.folded" 2>/dev/null
		perl "$collapse_ref" "$2" >"$tmpdir/new.folded" 2>/dev/null
		compare "perf: ${1##*/} ${2##*/}" "$tmpdir/base.folded" "$tmpdir/new.folded" "$1" "$2"
	done
else
	echo "# no stackcollapse-perf.pl (STACKCOLLAPSE_PERF): perf pairs not compared"
fi
finish
