#!/bin/sh
# The numbers of the text call-tree formats against the file's own
# arithmetic: tests/text-arith.py computes the weight and every function's
# self and total from each file under tests/data (Instruments deep copies,
# pmcstat call graphs) and compares them with tflame report --json.
# Skipped (77) without python3.

. "$top_srcdir/tests/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo "python3 not found: skipping the comparison with the files' arithmetic"
	exit 77
fi

for kind in instruments pmcstat; do
	for file in "$top_srcdir"/tests/data/$kind/*.txt; do
		short=${file#"$top_srcdir"/tests/data/}
		if ! "$TFLAME" report --json --limit=0 "$file" >"$tmpdir/report.json" 2>"$tmpdir/err"; then
			not_ok "$short: tflame report" "$(cat "$tmpdir/err")"
		elif python3 "$top_srcdir/tests/text-arith.py" "$kind" "$file" "$tmpdir/report.json" \
			>"$tmpdir/out" 2>&1; then
			ok "$short: $(tail -1 "$tmpdir/out" | sed 's/^[^:]*: //')"
		else
			not_ok "$short: as the file adds up" "$(cat "$tmpdir/out")"
		fi
	done
done
finish
