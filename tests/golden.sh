#!/bin/sh
# Golden tests: each tests/golden/NAME.cmd holds the arguments of one tflame
# run (relative to the source tree); NAME.expected holds its stdout, then
# its stderr and exit status. TFLAME_UPDATE_GOLDEN=1 rewrites the expected
# files instead; review the diff before committing.

. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 99

for cmd in tests/golden/*.cmd; do
	name=${cmd%.cmd}
	args=$(cat "$cmd")
	actual="$tmpdir/actual"
	(
		# eval, so that a redirection in the .cmd file (< input) applies.
		eval "\"\$TFLAME\" $args" >"$tmpdir/out" 2>"$tmpdir/err" </dev/null
		status=$?
		cat "$tmpdir/out"
		if [ -s "$tmpdir/err" ]; then
			echo "--- stderr"
			cat "$tmpdir/err"
		fi
		echo "--- exit $status"
	) >"$actual"
	if [ -n "$TFLAME_UPDATE_GOLDEN" ]; then
		cp "$actual" "$name.expected"
		ok "$name (updated)"
	elif [ ! -f "$name.expected" ]; then
		not_ok "$name" "no $name.expected (run with TFLAME_UPDATE_GOLDEN=1)"
	elif diff -u "$name.expected" "$actual" >"$tmpdir/diff"; then
		ok "$name"
	else
		not_ok "$name" "tflame $args" "$(head -40 "$tmpdir/diff")"
	fi
done
finish
