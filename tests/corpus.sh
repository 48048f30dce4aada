#!/bin/sh
# Runs collapse and report over every real profile in the shared corpus
# (../shared/corpus beside the source tree, or $TFLAME_CORPUS) and fails on
# any error, crash or empty output. Skipped (77) when there is no corpus.

. "$top_srcdir/tests/lib.sh"

corpus=${TFLAME_CORPUS:-$top_srcdir/../shared/corpus}
if [ ! -d "$corpus/recorded" ]; then
	echo "no corpus at $corpus: skipped"
	exit 77
fi

for f in "$corpus"/recorded/* "$corpus"/speedscope/linux-perf/* \
	 "$corpus"/speedscope/stackcollapse/* "$corpus"/pprof/* \
	 "$corpus"/speedscope/pprof/*; do
	[ -f "$f" ] || continue
	short=${f#"$corpus"/}
	for sub in collapse report "report --json"; do
		# shellcheck disable=SC2086
		"$TFLAME" $sub "$f" >"$tmpdir/out" 2>"$tmpdir/err"
		status=$?
		if [ $status -ne 0 ]; then
			not_ok "$sub $short" "exit $status" "$(head -5 "$tmpdir/err")"
		elif [ ! -s "$tmpdir/out" ]; then
			not_ok "$sub $short" "no output"
		else
			ok "$sub $short"
		fi
	done
	# report --json must be valid JSON.
	if [ -n "$PYTHON3" ] || command -v python3 >/dev/null 2>&1; then
		if "$TFLAME" report --json "$f" 2>/dev/null |
		   python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["samples"] > 0' 2>"$tmpdir/err"; then
			ok "json parses: $short"
		else
			not_ok "json parses: $short" "$(tail -2 "$tmpdir/err")"
		fi
	fi
done
finish
