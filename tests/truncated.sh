#!/bin/sh
# Compressed input cut short, as by a "perf script | gzip" killed early:
# tflame reads what gzip -dc or zstd -dc gets out of the file, less the
# partial line at the cut (never counted as a whole one), warns naming the
# byte where the file ends, and exits 0.

. "$top_srcdir/tests/lib.sh"

d=$tmpdir

# Folded stacks and perf script text, large enough to span many gzip blocks
# and a few zstd ones (zstd hands out whole blocks of 128 KiB).
awk 'BEGIN {
	for (i = 1; i <= 40000; i++)
		printf "main;work_%d;leaf_%d %d\n", i % 97, i, i % 13 + 1
}' >"$d/stacks.folded"
awk 'BEGIN {
	for (i = 1; i <= 12000; i++) {
		printf "prog %d [000] %d.%06d: %d cpu-clock:\n", 100 + i % 3,
			1000 + int(i / 1000), i % 1000 * 1000, 1000 + i % 7
		printf "\t%x leaf_%d (/opt/prog)\n", 4096 + i % 50, i % 50
		printf "\t%x work_%d (/opt/prog)\n", 8192 + i % 9, i % 9
		printf "\t1000 main (/opt/prog)\n\n"
	}
}' >"$d/perf.txt"

# cut FILE PERCENT OUT KIND: the first PERCENT % of FILE compressed with
# KIND, in OUT; then OUT.ref is what the reference tool decompresses from it. Moves
# the cut a byte at a time until that ends inside a line, so that there is
# a partial line to drop.
cut_file() {
	file=$1 percent=$2 out=$3 kind=$4
	"$kind" -q -c "$file" >"$d/full" || return 1
	bytes=$(($(wc -c <"$d/full") * percent / 100))
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		head -c "$bytes" "$d/full" >"$out"
		"$kind" -q -d -c "$out" >"$out.ref" 2>/dev/null
		[ -s "$out.ref" ] && [ "$(tail -c 1 "$out.ref" | od -An -c | tr -d ' ')" != '\n' ] &&
			return 0
		bytes=$((bytes + 1))
	done
	return 1
}

# check WHAT CUT KIND SUBCOMMAND...: tflame reads CUT as the complete lines
# of CUT.ref, with the warning that says so.
check() {
	what=$1 cut=$2 kind=$3
	shift 3
	size=$(wc -c <"$cut")
	lines=$(wc -l <"$cut.ref")
	head -n "$lines" "$cut.ref" >"$d/complete"
	partial=$(($(wc -c <"$cut.ref") - $(wc -c <"$d/complete")))
	warning="tflame: $cut: warning: truncated $kind data: the file ends at byte $size, inside the compressed stream; kept the $lines complete lines before the cut and dropped the partial line $((lines + 1)) ($partial bytes)"

	"$TFLAME" "$@" "$cut" >"$d/out" 2>"$d/err"
	status=$?
	"$TFLAME" "$@" "$d/complete" >"$d/want" 2>/dev/null
	if [ "$status" -ne 0 ]; then
		not_ok "$what" "exit $status, want 0" "$(head -3 "$d/err")"
	elif [ "$partial" -le 0 ] || [ "$lines" -lt 100 ]; then
		not_ok "$what" "the cut left $lines lines and $partial bytes: a bad test"
	elif ! grep -qxF -- "$warning" "$d/err"; then
		not_ok "$what" "stderr lacks the warning" "want: $warning" \
			"got:  $(head -3 "$d/err")"
	elif ! sed "s|$d/complete|$cut|" "$d/want" | cmp -s - "$d/out"; then
		not_ok "$what" "output differs from that of the complete lines" \
			"$(sed "s|$d/complete|$cut|" "$d/want" | diff - "$d/out" | head -5)"
	else
		ok "$what"
	fi
}

for kind in gzip zstd; do
	if ! command -v "$kind" >/dev/null 2>&1; then
		printf '# %s is not installed: its tests are skipped\n' "$kind"
		continue
	fi
	if ! cut_file "$d/stacks.folded" 50 "$d/cut-folded.$kind" "$kind"; then
		not_ok "$kind: cut a folded file inside a line"
		continue
	fi
	check "$kind: collapse of cut folded stacks" "$d/cut-folded.$kind" "$kind" collapse
	check "$kind: report of cut folded stacks" "$d/cut-folded.$kind" "$kind" report --limit 3
	if ! cut_file "$d/perf.txt" 60 "$d/cut-perf.$kind" "$kind"; then
		not_ok "$kind: cut a perf script file inside a line"
		continue
	fi
	check "$kind: collapse of cut perf script" "$d/cut-perf.$kind" "$kind" collapse
	check "$kind: report of cut perf script" "$d/cut-perf.$kind" "$kind" report --limit 3

	# A sample whose header line was cut is not counted (one cut among its
	# frame lines keeps the frames before the cut, as the plain file would).
	samples=$("$TFLAME" report "$d/cut-perf.$kind" 2>/dev/null | awk '$1 == "samples" { print $2; exit }')
	want=$(grep -c '^prog ' "$d/complete")
	if [ "$samples" = "$want" ] && [ "$want" -gt 0 ]; then
		ok "$kind: report counts the $want samples before the cut"
	else
		not_ok "$kind: report counts the samples before the cut" \
			"samples '$samples', want $want"
	fi
done

# Through a pipe, as "perf script | gzip" cut short and piped in.
cut_file "$d/stacks.folded" 30 "$d/pipe.gz" gzip
"$TFLAME" collapse - <"$d/pipe.gz" >"$d/out" 2>"$d/err"
status=$?
if [ "$status" -eq 0 ] && grep -q "^tflame: -: warning: truncated gzip data: the file ends at byte $(wc -c <"$d/pipe.gz"), inside" "$d/err" &&
	[ -s "$d/out" ]; then
	ok "gzip: cut data on standard input"
else
	not_ok "gzip: cut data on standard input" "exit $status" "$(head -3 "$d/err")"
fi

# Cut in the header: nothing to read is still bad input.
gzip -c "$d/stacks.folded" | head -c 10 >"$d/header.gz"
"$TFLAME" collapse "$d/header.gz" >"$d/out" 2>"$d/err"
status=$?
if [ "$status" -eq 1 ] && [ ! -s "$d/out" ] &&
	grep -qxF "tflame: $d/header.gz: truncated gzip data: the file ends at byte 10, before anything could be decompressed" "$d/err"; then
	ok "gzip: cut in the header is an error"
else
	not_ok "gzip: cut in the header is an error" "exit $status" "$(head -3 "$d/err")"
fi

finish
