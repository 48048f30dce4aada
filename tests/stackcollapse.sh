#!/bin/sh
# collapse against FlameGraph's stackcollapse-perf.pl itself, byte for
# byte: every perf script file under tests/data (perf/, recorded/ and inline/) with
# no flag and with each flag FlameGraph's own test.sh runs. The script is
# $STACKCOLLAPSE_PERF, or stackcollapse-perf.pl on the PATH; without it (or
# without perl) this is skipped (77) and the goldens, checked against it
# when they were written, stand for it.

. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 99

ref=${STACKCOLLAPSE_PERF:-$(command -v stackcollapse-perf.pl 2>/dev/null)}
if [ -z "$ref" ] || [ ! -f "$ref" ]; then
	echo "no stackcollapse-perf.pl (set STACKCOLLAPSE_PERF): skipped"
	exit 77
fi
command -v perl >/dev/null 2>&1 || { echo "no perl: skipped"; exit 77; }

# The files that show a difference tflame(1) lists under DIFFERENCES FROM
# STACKCOLLAPSE-PERF.PL, each for that reason alone.
differs() {
	case $1 in
	tests/data/perf/crlf.txt) echo "CRLF line ends" ;;
	tests/data/perf/deleted.txt) echo "a module with parentheses of its own" ;;
	tests/data/perf/no-final-blank.txt) echo "no blank line after the last sample" ;;
	tests/data/perf/one-char-comm.txt) echo "a process name of one character" ;;
	tests/data/perf/single-line.txt | tests/data/perf/tracepoint-flat.txt | \
	tests/data/recorded/no-callchain.txt) echo "samples printed on one line" ;;
	*) return 1 ;;
	esac
}

for f in tests/data/perf/*.txt tests/data/recorded/*.txt tests/data/inline/*.txt; do
	# --by-process names its roots as the script's --pid does.
	for flag in "" --pid --tid --kernel --jit --all --addrs --by-process; do
		name="$f${flag:+ $flag}"
		rflag=$flag
		[ "$flag" = --by-process ] && rflag=--pid
		# shellcheck disable=SC2086
		perl "$ref" $rflag "$f" >"$tmpdir/expected" 2>/dev/null
		# shellcheck disable=SC2086
		"$TFLAME" collapse $flag "$f" >"$tmpdir/actual" 2>"$tmpdir/err"
		status=$?
		if why=$(differs "$f"); then
			# Still a real difference, or the note is out of date.
			if cmp -s "$tmpdir/expected" "$tmpdir/actual"; then
				not_ok "$name: listed as differing ($why) but equal"
			else
				ok "$name: differs as documented ($why)"
			fi
		elif [ $status -ne 0 ]; then
			not_ok "$name" "exit $status" "$(head -3 "$tmpdir/err")"
		elif cmp -s "$tmpdir/expected" "$tmpdir/actual"; then
			ok "$name"
		else
			not_ok "$name" "$(diff "$tmpdir/expected" "$tmpdir/actual" | head -10)"
		fi
	done
done
finish
