#!/bin/sh
# Replay the inputs that fuzzing once found (tests/fuzz-regressions/) through
# tflame: each must load or fail cleanly (exit 0, or 1 with a message),
# never crash, whatever format it is read as.

. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 99

# Every --format value, from the message for a bad one.
formats=$("$TFLAME" report --format=nope /dev/null 2>&1 |
	sed -n "s/.*(valid: \(.*\))\$/\1/p" | tr -d ',')
[ -n "$formats" ] || { echo "no format list in tflame's message"; exit 99; }

# replay NAME FILE FORMAT: FORMAT "" probes.
replay() {
	if [ -n "$3" ]; then
		"$TFLAME" report --format="$3" "$2" >/dev/null 2>"$tmpdir/err"
	else
		"$TFLAME" report "$2" >/dev/null 2>"$tmpdir/err"
	fi
	status=$?
	if [ $status -eq 0 ] || { [ $status -eq 1 ] && [ -s "$tmpdir/err" ]; }; then
		ok "$1"
	else
		not_ok "$1" "exit $status" "$(head -5 "$tmpdir/err")"
	fi
}

for f in tests/fuzz-regressions/*/*; do
	case $f in
	*/README) continue ;;
	*/import/*)
		tail -c +2 "$f" >"$tmpdir/input"
		replay "$f (probed)" "$tmpdir/input" ""
		for fmt in $formats; do
			[ "$fmt" = perf.data ] && continue
			replay "$f as $fmt" "$tmpdir/input" "$fmt"
		done ;;
	*)
		fmt=$(basename "$(dirname "$f")")
		replay "$f" "$f" "$fmt" ;;
	esac
done
# Always one check, so that an empty corpus still proves the script runs.
replay "an empty input" /dev/null ""
finish
