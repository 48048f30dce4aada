#!/bin/sh
# A tid that exec'd (sh, then python3) is one thread in the text commands:
# report's table names it by its names in order, "->" between them where
# the locale is not UTF-8; --thread and --comm (by any of its names) take
# it whole; the completion offers its tid once, the speedscope export a
# profile per tid; collapse still keys each sample by the name it had
# then, as stackcollapse-perf.pl does. On a
# recording of `perf record -g -- sh -c 'exec python3 ...'` (perf script
# -F +pid), where `perf report --sort pid` gives 72.55% to 24115:python3
# and 27.45% to 24160:python3.

. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 99

f=tests/data/recorded/exec-chain.txt

# threads_of ARGS...: report's thread rows, "tid share name" per line.
threads_of() {
	"$TFLAME" report --no-symbols --limit=0 "$@" "$f" 2>/dev/null |
		sed -n '/^threads/,/^$/p' | awk '$6 ~ /^[0-9]+$/ { print $6, $3, $7 }'
}

rows=$(LC_ALL=C.UTF-8 threads_of)
want="24115 72.5% sh→python3
24160 27.5% python3"
if [ "$rows" = "$want" ]; then
	ok "report: a row per tid, as perf report --sort pid"
else
	not_ok "report: a row per tid" "$rows"
fi

rows=$(LC_ALL=C threads_of)
want="24115 72.5% sh->python3
24160 27.5% python3"
if [ "$rows" = "$want" ]; then
	ok "report in the C locale: sh->python3"
else
	not_ok "report in the C locale" "$rows"
fi

for sel in --thread=24115 "--comm=^sh$" "--comm=^python3$ --thread=24115"; do
	# shellcheck disable=SC2086
	rows=$(LC_ALL=C threads_of $sel)
	if [ "$rows" = "24115 100% sh->python3" ] || { [ "$sel" = "--comm=^python3$ --thread=24115" ] &&
		[ "$rows" = "24115 72.5% sh->python3
24160 27.5% python3" ]; }; then
		ok "report $sel: the thread whole"
	else
		not_ok "report $sel" "$rows"
	fi
done

# No thread of that tid: said so, exit 2.
"$TFLAME" report --no-symbols --thread=99999 "$f" >/dev/null 2>"$tmpdir/err"
status=$?
if [ $status -ne 0 ] && grep -q "no thread with tid 99999" "$tmpdir/err"; then
	ok "--thread of no thread: an error"
else
	not_ok "--thread of no thread" "exit $status" "$(cat "$tmpdir/err")"
fi

# The completion offers the tid once, with its names.
"$TFLAME" __complete threads "$f" >"$tmpdir/out"
printf '24115\tsh->python3\n24160\tpython3\n' >"$tmpdir/want"
if cmp -s "$tmpdir/want" "$tmpdir/out"; then
	ok "__complete threads: the tid once"
else
	not_ok "__complete threads" "$(cat "$tmpdir/out")"
fi

# The speedscope export: a profile per thread, named as speedscope names
# perf's threads, the comm being the names the picker shows.
"$TFLAME" export --no-symbols --to=speedscope -o "$tmpdir/e.json" "$f" 2>/dev/null
grep -o '"type":"sampled","name":"[^"]*"' "$tmpdir/e.json" >"$tmpdir/names"
printf '"type":"sampled","name":"sh\342\206\222python3 pid: 24115 tid: 24115"\n"type":"sampled","name":"python3 pid: 24115 tid: 24160"\n' \
	>"$tmpdir/want"
if cmp -s "$tmpdir/want" "$tmpdir/names"; then
	ok "export --to=speedscope: a profile per tid"
else
	not_ok "export --to=speedscope" "$(cat "$tmpdir/names")"
fi

# collapse keys by the name each sample had, as stackcollapse-perf.pl.
"$TFLAME" collapse --pid "$f" | cut -d';' -f1 | sort | uniq -c | awk '{ print $2, $1 }' \
	>"$tmpdir/roots"
printf 'python3-24115 18\nsh-24115 9\n' >"$tmpdir/want"
if cmp -s "$tmpdir/want" "$tmpdir/roots"; then
	ok "collapse --pid: sh-PID before the exec, python3-PID after"
else
	not_ok "collapse --pid roots" "$(cat "$tmpdir/roots")"
fi
finish
