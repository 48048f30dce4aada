#!/bin/sh
# The numbers of stackprof, GHC, V8 tick log and V8 heap profiles against
# speedscope's way of weighing them: tests/json-formats.py computes every
# function's self and total from the file alone and compares them with
# tflame report --json. The project's own recordings under tests/data
# always; the shared corpus's files too when it is there. Skipped (77)
# without python3.

. "$top_srcdir/tests/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo "python3 not found: skipping the comparison with speedscope's weights"
	exit 77
fi

# check KIND FILE [tflame report options]
check_file() {
	kind=$1 file=$2 short=${2#"$top_srcdir"/}
	shift 2
	if ! "$TFLAME" report --json --limit=0 "$@" "$file" >"$tmpdir/report.json" 2>"$tmpdir/err"; then
		not_ok "$short: tflame report $*" "$(cat "$tmpdir/err")"
	elif python3 "$top_srcdir/tests/json-formats.py" "$kind" "$file" "$tmpdir/report.json" \
		>"$tmpdir/out" 2>&1; then
		ok "$short${*:+ $*}: $(tail -1 "$tmpdir/out" | sed 's/^[^:]*: //')"
	else
		not_ok "$short${*:+ $*}: as speedscope weighs it" "$(cat "$tmpdir/out")"
	fi
}

data=$top_srcdir/tests/data
for f in "$data"/stackprof/*.json; do
	check_file stackprof "$f"
done
check_file heapprofile "$data"/heapprofile/alloc.heapprofile
check_file ghc-time "$data"/ghc/fib.prof --event=time
check_file ghc-allocation "$data"/ghc/fib.prof --event=allocation
check_file v8log "$data"/v8log/prog.v8log.json
check_file v8log "$data"/v8log/prog.v8log.json.zip

corpus=${TFLAME_CORPUS:-$top_srcdir/../shared/corpus}/speedscope
if [ -d "$corpus" ]; then
	for f in "$corpus"/stackprof/*.json; do
		check_file stackprof "$f"
	done
	for f in "$corpus"/*/*/*.heapprofile; do
		check_file heapprofile "$f"
	done
	check_file ghc-time "$corpus"/haskell/simple.prof --event=time
	check_file ghc-allocation "$corpus"/haskell/simple.prof --event=allocation
	check_file v8log "$corpus"/node/8.5.0/simple.v8log.json.zip
else
	echo "# no corpus at $corpus: only tests/data checked"
fi

finish
