#!/bin/sh
# The edges of the input (issue 36, point 14): an empty perf script file
# or one of comments only collapses to nothing and succeeds, as
# stackcollapse-perf.pl does ($STACKCOLLAPSE_PERF, compared where it is
# installed), with a warning; periods and counts past 64 bits, and totals
# past them, are summed exactly (checked against python3's integers where
# it is installed, else against the sums written here); a count with more
# than 9 decimals is rounded to 9, not skipped.

. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 99
d=tests/data/edges

ref=${STACKCOLLAPSE_PERF:-$(command -v stackcollapse-perf.pl 2>/dev/null)}
command -v perl >/dev/null 2>&1 || ref=

for f in empty.txt comments-only.txt; do
	"$TFLAME" collapse "$d/$f" >"$tmpdir/out" 2>"$tmpdir/err"
	status=$?
	if [ $status -ne 0 ]; then
		not_ok "$f: collapse exits 0" "exit $status" "$(cat "$tmpdir/err")"
	elif [ -s "$tmpdir/out" ]; then
		not_ok "$f: collapse writes nothing" "$(head -3 "$tmpdir/out")"
	elif ! grep -q "warning: no samples" "$tmpdir/err"; then
		not_ok "$f: a warning says there are no samples" "$(cat "$tmpdir/err")"
	else
		ok "$f: no output, exit 0, a warning"
	fi
	if [ -n "$ref" ] && [ -f "$ref" ]; then
		perl "$ref" "$d/$f" >"$tmpdir/expected" 2>/dev/null
		rstatus=$?
		if [ $rstatus -eq $status ] && cmp -s "$tmpdir/expected" "$tmpdir/out"; then
			ok "$f: as stackcollapse-perf.pl (exit $rstatus)"
		else
			not_ok "$f: as stackcollapse-perf.pl" "reference exit $rstatus, ours $status"
		fi
	fi
	# Only collapse takes it: the other commands have nothing to show.
	if "$TFLAME" report "$d/$f" >/dev/null 2>"$tmpdir/err"; then
		not_ok "$f: report refuses it"
	else
		ok "$f: report refuses it: $(cat "$tmpdir/err")"
	fi
done

# With the flags and the lens too: nothing to write, nothing to fail.
for flag in --pid --inverted --event-filter=cycles --transform=drop-function:main \
	--by-process --time=1,2 --diff; do
	extra=
	[ "$flag" = --diff ] && extra=$d/comments-only.txt
	# shellcheck disable=SC2086
	"$TFLAME" collapse $flag "$d/empty.txt" $extra >"$tmpdir/out" 2>"$tmpdir/err"
	status=$?
	if [ $status -eq 0 ] && [ ! -s "$tmpdir/out" ]; then
		ok "empty.txt, collapse $flag: no output, exit 0"
	else
		not_ok "empty.txt, collapse $flag" "exit $status" "$(head -3 "$tmpdir/err")"
	fi
done

# The exact sums of a folded file, by stack (python3's integers).
exact_sums() {
	python3 -c '
import sys
sums = {}
for line in open(sys.argv[1]):
    stack, count = line.rsplit(None, 1)
    sums[stack] = sums.get(stack, 0) + int(count)
for stack in sorted(sums):
    print(stack, sums[stack])
print("total", sum(sums.values()))
' "$1"
}

"$TFLAME" collapse "$d/wide.folded" >"$tmpdir/out" 2>"$tmpdir/err"
status=$?
"$TFLAME" report --json "$d/wide.folded" >"$tmpdir/json" 2>/dev/null
total=$(sed -n 's/^  "weight": \([0-9]*\),$/\1/p' "$tmpdir/json")
echo "total $total" >>"$tmpdir/out"
if command -v python3 >/dev/null 2>&1; then
	exact_sums "$d/wide.folded" >"$tmpdir/expected"
else
	printf '%s\n' "main;big 100000000000000000000" "main;small 1" \
		"main;work 36893488147419103230" "total 136893488147419103231" >"$tmpdir/expected"
fi
if [ $status -eq 0 ] && cmp -s "$tmpdir/expected" "$tmpdir/out"; then
	ok "counts past 64 bits: collapse and report's total exact ($total)"
else
	not_ok "counts past 64 bits: exact" "exit $status" "$(diff "$tmpdir/expected" "$tmpdir/out")"
fi
if grep -q "past 64 bits, each kept exactly" "$tmpdir/err" &&
	grep -q "the views count to 64 significant bits" "$tmpdir/err"; then
	ok "counts past 64 bits: the split and the views' scaled sums are told"
else
	not_ok "counts past 64 bits: warnings" "$(cat "$tmpdir/err")"
fi
"$TFLAME" report "$d/wide.folded" 2>/dev/null | grep '^weight' >"$tmpdir/out"
if grep -qx 'weight    136,893,488,147,419,103,231 (no unit)' "$tmpdir/out"; then
	ok "report's weight line exact past 64 bits"
else
	not_ok "report's weight line" "$(cat "$tmpdir/out")"
fi

# Periods past 64 bits: the sum exact, where the script's is a double.
"$TFLAME" collapse "$d/wide-period.txt" >"$tmpdir/out" 2>"$tmpdir/err"
status=$?
printf '%s\n' "prog;main;other 10" "prog;main;work 55340232221128654845" >"$tmpdir/expected"
if [ $status -eq 0 ] && cmp -s "$tmpdir/expected" "$tmpdir/out"; then
	ok "periods past 64 bits: exact sums"
else
	not_ok "periods past 64 bits" "exit $status" "$(cat "$tmpdir/out" "$tmpdir/err")"
fi
if [ -n "$ref" ] && [ -f "$ref" ]; then
	perl "$ref" "$d/wide-period.txt" >"$tmpdir/expected" 2>/dev/null
	# The script sums in doubles: the same to their 15 digits.
	if awk 'NR == FNR { r[$1] = $2; next }
		{ if (!($1 in r)) exit 1; d = r[$1] - $2; if (d < 0) d = -d
		  if (d > $2 * 1e-14) exit 1; n++ }
		END { exit n != 2 }' "$tmpdir/expected" "$tmpdir/out"; then
		ok "periods past 64 bits: stackcollapse-perf.pl's doubles agree ($(tr '\n' ' ' <"$tmpdir/expected"))"
	else
		not_ok "periods past 64 bits: as the script's" "$(cat "$tmpdir/expected")"
	fi
fi

# More than 9 decimals: rounded half up to 9, kept, and said.
"$TFLAME" collapse "$d/many-decimals.folded" >"$tmpdir/out" 2>"$tmpdir/err"
printf '%s\n' "main;a 0.123456789" "main;b 3" "main;c 1.5" >"$tmpdir/expected"
if cmp -s "$tmpdir/expected" "$tmpdir/out" &&
	grep -q "2 counts rounded to 9 decimals" "$tmpdir/err"; then
	ok "counts of more than 9 decimals rounded to 9, with a warning"
else
	not_ok "counts of more than 9 decimals" "$(cat "$tmpdir/out" "$tmpdir/err")"
fi
# A total past 64 bits in the views: report's self and total of every
# function within amounts_rounded_to of the exact sums (python3's
# integers, a function counted once per sample), its shares the exact
# ones to the digits printed, folded export exact, the search's share too.
w=tests/data/folded/wide-total.folded
if command -v python3 >/dev/null 2>&1; then
	"$TFLAME" report --json --limit=0 "$w" >"$tmpdir/json" 2>/dev/null
	if python3 -c '
import json, sys
rows = {}
total = 0
for line in open(sys.argv[1]):
    stack, count = line.rsplit(None, 1)
    frames, w = stack.split(";"), int(count)
    total += w
    for f in set(frames):
        rows.setdefault(f, [0, 0])[1] += w
    rows.setdefault(frames[-1], [0, 0])[0] += w
r = json.load(open(sys.argv[2]))
unit = r["amounts_rounded_to"]
assert r["weight"] == total, (r["weight"], total)
seen = 0
for row in r["top_self"] + r["top_total"]:
    self, tot = rows[row["function"]]
    for got, exact, pct in ((row["self"], self, row["self_percent"]),
                            (row["total"], tot, row["total_percent"])):
        assert got % unit == 0 and abs(got - exact) <= unit, (row, exact, unit)
        # Six digits, or what the rounded amount knows of a sliver.
        want = 100 * exact / total
        assert abs(pct - want) <= abs(want) * 1e-5 + 100 * unit / total, (row, want)
        seen += 1
assert seen == 2 * (len(r["top_self"]) + len(r["top_total"])) and seen >= 20, seen
' "$w" "$tmpdir/json"; then
		ok "a total past 64 bits: report's amounts and shares as the exact sums'"
	else
		not_ok "a total past 64 bits: report's amounts and shares" "$(head -40 "$tmpdir/json")"
	fi
	"$TFLAME" export --to=folded -o "$tmpdir/out" "$w" 2>/dev/null
	exact_sums "$w" | sed '$d' >"$tmpdir/expected"
	if cmp -s "$tmpdir/expected" "$tmpdir/out"; then
		ok "a total past 64 bits: export --to=folded exact"
	else
		not_ok "a total past 64 bits: export --to=folded" "$(diff "$tmpdir/expected" "$tmpdir/out")"
	fi
	share=$(python3 -c 'print("%.1f%%" % (100 * 2 * (2**64 - 1) / 49116860184397335832))')
	if "$TFLAME" dump --search='^lex$' --width=80 --height=3 "$w" 2>/dev/null |
		grep -q "matched ~36893488147419103200 ($share of all"; then
		ok "a total past 64 bits: the search's matched weight and share ($share)"
	else
		not_ok "a total past 64 bits: the search's share" \
			"$("$TFLAME" dump --search='^lex$' --width=80 --height=3 "$w" 2>&1 | head -3)"
	fi
fi
# Periods past 64 bits in all: export to folded exact (the sums by hand:
# 3 x 6148914691236517205, 3 x (2^64 - 1), 3 x (2^63 - 1), 3 x 7).
"$TFLAME" export --to=folded -o "$tmpdir/out" "tests/data/edges/wide-total.txt" 2>/dev/null
printf '%s\n' "main 18446744073709551615" "main;compute 55340232221128654845" \
	"main;helper;compute 27670116110564327421" "main;read_input 21" >"$tmpdir/expected"
if cmp -s "$tmpdir/expected" "$tmpdir/out"; then
	ok "periods past 64 bits in all: export --to=folded exact"
else
	not_ok "periods past 64 bits in all: export" "$(diff "$tmpdir/expected" "$tmpdir/out")"
fi

finish
