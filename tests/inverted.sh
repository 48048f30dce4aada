#!/bin/sh
# The inverted outputs against the plain ones, worked out here with awk:
#
#  - collapse --inverted is collapse with each line's frames turned
#    around (then sorted), for every perf script file under tests/data
#    and the folded ones, with and without --pid; where
#    stackcollapse-perf.pl is installed ($STACKCOLLAPSE_PERF or on the
#    PATH), its lines turned around too;
#  - the first row of the inverted tree (report --inverted --json) is,
#    per leaf frame, the sum of the weights of the folded lines that end
#    in it: for folded input, whose names are the frames as they are.

. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 99

# Turn each "a;b;c N" line into "c;b;a N", sorted as collapse sorts.
turn() {
	awk '{
		w = $NF; sub(/ [^ ]*$/, "")
		n = split($0, f, ";"); s = f[n]
		for (i = n - 1; i >= 1; i--) s = s ";" f[i]
		print s " " w
	}' | LC_ALL=C sort
}

ref=${STACKCOLLAPSE_PERF:-$(command -v stackcollapse-perf.pl 2>/dev/null)}
[ -n "$ref" ] && [ -f "$ref" ] && command -v perl >/dev/null 2>&1 || ref=

for f in tests/data/perf/*.txt tests/data/recorded/*.txt tests/data/folded/basic.txt \
	 tests/data/folded/inverted.txt; do
	for flag in "" --pid; do
		name="$f${flag:+ $flag}"
		# shellcheck disable=SC2086
		if ! "$TFLAME" collapse $flag "$f" 2>/dev/null | turn >"$tmpdir/want" ||
		   ! "$TFLAME" collapse --inverted $flag "$f" >"$tmpdir/got" 2>/dev/null; then
			not_ok "$name: collapse failed"
			continue
		fi
		if [ ! -s "$tmpdir/got" ]; then
			not_ok "$name: collapse --inverted wrote nothing"
		elif cmp -s "$tmpdir/want" "$tmpdir/got"; then
			ok "$name: collapse --inverted is collapse turned around ($(wc -l <"$tmpdir/got") lines)"
		else
			not_ok "$name: collapse --inverted differs" \
				"$(diff "$tmpdir/want" "$tmpdir/got" | head -10)"
		fi
		case $f in tests/data/folded/*) continue ;; esac
		[ -n "$ref" ] || continue
		# shellcheck disable=SC2086
		perl "$ref" $flag "$f" 2>/dev/null | turn >"$tmpdir/ref"
		# The script's own differences (tflame(1)) show in stackcollapse.sh.
		if cmp -s "$tmpdir/ref" "$tmpdir/got"; then
			ok "$name: as stackcollapse-perf.pl, turned around"
		else
			echo "# $name: differs from stackcollapse-perf.pl (see stackcollapse.sh)"
		fi
	done
done
[ -n "$ref" ] || echo "# no stackcollapse-perf.pl (set STACKCOLLAPSE_PERF): its comparison skipped"

# Row 0 of the inverted tree: the leaf frames' weights, heaviest first, a
# tie by name. Only the weights and names are compared, not the order's ties.
for f in tests/data/folded/basic.txt tests/data/folded/inverted.txt; do
	awk 'NF >= 2 { w = $NF; sub(/ [^ ]*$/, ""); n = split($0, s, ";"); sum[s[n]] += w }
	     END { for (k in sum) print sum[k], k }' "$f" | LC_ALL=C sort >"$tmpdir/want"
	if ! "$TFLAME" report --inverted --json --limit=0 "$f" >"$tmpdir/json"; then
		not_ok "$f: report --inverted failed"
		continue
	fi
	# One "weight frame" line per row-0 node, from the pretty-printed JSON:
	# the first row's keys are indented 6, their callers' 10.
	awk '/^  "inverted": / { on = 1 }
	     on && /^      "frame": / { sub(/^ *"frame": "/, ""); sub(/",$/, ""); name = $0 }
	     on && /^      "weight": / { sub(/^ *"weight": /, ""); sub(/,$/, ""); print $0, name }' \
		"$tmpdir/json" | LC_ALL=C sort >"$tmpdir/got"
	if [ -s "$tmpdir/got" ] && cmp -s "$tmpdir/want" "$tmpdir/got"; then
		ok "$f: the inverted tree's first row is the leaf frames' weights"
	else
		not_ok "$f: the inverted tree's first row" \
			"$(diff "$tmpdir/want" "$tmpdir/got" | head -10)"
	fi
done
finish
