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
	 "$corpus"/speedscope/pprof/* "$corpus"/speedscope/callgrind/* \
	 "$corpus"/speedscope/Instruments/*/* "$corpus"/speedscope/pmcstat/* \
	 "$corpus"/speedscope/papyrus/* "$corpus"/speedscope/stackprof/* \
	 "$corpus"/speedscope/haskell/*; do
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
# The text call trees against the file's own arithmetic (text-arith.py).
if command -v python3 >/dev/null 2>&1; then
	for f in "$corpus"/speedscope/Instruments/*/* "$corpus"/speedscope/pmcstat/*; do
		[ -f "$f" ] || continue
		short=${f#"$corpus"/}
		case $short in
		*/Instruments/*) kind=instruments ;;
		*) kind=pmcstat ;;
		esac
		"$TFLAME" report --json --limit=0 "$f" >"$tmpdir/report.json" 2>/dev/null
		if python3 "$top_srcdir/tests/text-arith.py" $kind "$f" "$tmpdir/report.json" \
			>"$tmpdir/out" 2>&1; then
			ok "as the file adds up: $short"
		else
			not_ok "as the file adds up: $short" "$(head -5 "$tmpdir/out")"
		fi
	done
fi

# Every file of the speedscope corpus: none may be an "unknown format" any
# more. A directory whose format has no importer yet goes in $pending
# (one word per directory; remove it when its importer lands).
pending=""
for f in "$corpus"/speedscope/*/* "$corpus"/speedscope/*/*/* "$corpus"/speedscope/*/*/*/*; do
	[ -f "$f" ] || continue
	short=${f#"$corpus"/}
	dir=${short#speedscope/}
	dir=${dir%%/*}
	case " $pending " in *" $dir "*) continue ;; esac
	"$TFLAME" report "$f" >/dev/null 2>"$tmpdir/err"
	if grep -q "unknown format" "$tmpdir/err"; then
		not_ok "a known format: $short" "$(head -3 "$tmpdir/err")"
	else
		ok "a known format: $short"
	fi
done

# The JSON formats (speedscope, Chrome, Node, Trace Event). Some files are
# invalid by design or in no format tflame reads; each of those must fail
# with exit 1, no crash, and an error naming the file:
#  - speedscope/invalid: evented profiles that do not nest;
#  - node/8.5.0's isolate log: V8's --prof log, which tflame reads only
#    preprocessed (the zip beside it holds that JSON).
for f in "$corpus"/speedscope/speedscope/*/* "$corpus"/speedscope/Chrome/*/* \
	 "$corpus"/speedscope/node/*/* "$corpus"/speedscope/trace-event/*; do
	[ -f "$f" ] || continue
	short=${f#"$corpus"/}
	case $short in
	speedscope/speedscope/invalid/*|speedscope/node/8.5.0/*.log)
		"$TFLAME" report "$f" >"$tmpdir/out" 2>"$tmpdir/err"
		status=$?
		if [ $status -eq 1 ] && grep -q "${f##*/}" "$tmpdir/err"; then
			ok "invalid by design: $short"
		else
			not_ok "invalid by design: $short" "exit $status" "$(head -5 "$tmpdir/err")"
		fi
		continue
		;;
	esac
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
	# Content, not the name, picks the importer.
	case $short in
	speedscope/speedscope/*) want=speedscope ;;
	*.heapprofile) want="V8 heap profile" ;;
	*.v8log.json.zip) want="V8 tick log" ;;
	*) want=Chrome/Node ;;
	esac
	if "$TFLAME" report "$f" 2>/dev/null | grep -q "^format  *$want\$"; then
		ok "probed as $want: $short"
	else
		not_ok "probed as $want: $short"
	fi
done
# Java Flight Recorder: read, probed by content, and (with the JDK's jfr
# tool) every event type's stacks as the JDK reads them.
for f in "$corpus"/speedscope/java-flight-recorder/*; do
	[ -f "$f" ] || continue
	short=${f#"$corpus"/}
	for sub in collapse report "report --json"; do
		# shellcheck disable=SC2086
		if "$TFLAME" $sub "$f" >"$tmpdir/out" 2>"$tmpdir/err" && [ -s "$tmpdir/out" ]; then
			ok "$sub $short"
		else
			not_ok "$sub $short" "$(head -5 "$tmpdir/err")"
		fi
	done
	if "$TFLAME" report "$f" 2>/dev/null | grep -q "^format  *jfr\$"; then
		ok "probed as jfr: $short"
	else
		not_ok "probed as jfr: $short"
	fi
	sh "$top_srcdir/tests/jfr-reference.sh" "$f" >"$tmpdir/ref" 2>&1
	case $? in
	0) ok "as jfr print reads it: $short" ;;
	77) echo "# no jfr tool: $short not compared" ;;
	*) not_ok "as jfr print reads it: $short" "$(grep -A5 '^not ok' "$tmpdir/ref" | head -12)" ;;
	esac
done
# Firefox (DevTools recordings) and Safari: loaded, probed, and every
# function's figures as the file adds them up (tests/json-arith.py), and
# the recordings' page JS as speedscope shows it.
for f in "$corpus"/speedscope/Firefox/*/* "$corpus"/speedscope/Safari/*/*; do
	[ -f "$f" ] || continue
	short=${f#"$corpus"/}
	case $short in
	*/Firefox/*) want="Gecko profile" kinds="gecko gecko-js" ;;
	*) want="Safari recording" kinds=safari ;;
	esac
	for sub in collapse report; do
		if "$TFLAME" $sub "$f" >"$tmpdir/out" 2>"$tmpdir/err" && [ -s "$tmpdir/out" ]; then
			ok "$sub $short"
		else
			not_ok "$sub $short" "$(head -5 "$tmpdir/err")"
		fi
	done
	if "$TFLAME" report "$f" 2>/dev/null | grep -q "^format  *$want\$"; then
		ok "probed as $want: $short"
	else
		not_ok "probed as $want: $short"
	fi
	command -v python3 >/dev/null 2>&1 || continue
	"$TFLAME" report --json --limit=0 "$f" >"$tmpdir/report.json" 2>/dev/null
	for kind in $kinds; do
		if python3 "$top_srcdir/tests/json-arith.py" $kind "$f" "$tmpdir/report.json" \
			>"$tmpdir/out" 2>&1; then
			ok "$kind arithmetic: $short"
		else
			not_ok "$kind arithmetic: $short" "$(tail -5 "$tmpdir/out")"
		fi
	done
done
finish
