#!/bin/sh
# Group by process (--by-process) against collapse --pid, which names its
# roots the same way: on every perf script file under tests/data, the
# grouped collapse is the --pid one (and with --tid, the --tid one), and a
# lens file's "by-process" line does what the option does.
# (stackcollapse.sh compares it with stackcollapse-perf.pl --pid too.)

. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 99

for f in tests/data/perf/*.txt tests/data/recorded/*.txt; do
	for flag in "" --tid; do
		name="$f${flag:+ $flag}"
		"$TFLAME" collapse ${flag:---pid} "$f" >"$tmpdir/expected" 2>"$tmpdir/eerr"
		# shellcheck disable=SC2086
		"$TFLAME" collapse --by-process $flag "$f" >"$tmpdir/actual" 2>"$tmpdir/err"
		if ! cmp -s "$tmpdir/eerr" "$tmpdir/err"; then
			not_ok "$name: other warnings" "$(diff "$tmpdir/eerr" "$tmpdir/err" | head -5)"
		elif cmp -s "$tmpdir/expected" "$tmpdir/actual"; then
			ok "$name: --by-process is ${flag:---pid}"
		else
			not_ok "$name: --by-process is not ${flag:---pid}" \
				"$(diff "$tmpdir/expected" "$tmpdir/actual" | head -10)"
		fi
	done
done

# A process frame at every root: the grouped profile has no other root.
f=tests/data/perf/procs-pid.txt
"$TFLAME" collapse --by-process "$f" | cut -d';' -f1 | sort -u >"$tmpdir/roots"
if [ "$(tr '\n' ' ' <"$tmpdir/roots")" = \
	"bash-19086 cc1-19090 kdamond.0-78 perf-19106 python3-19086 python3-19162 xz-19085 " ]; then
	ok "every root is a process, comm-PID"
else
	not_ok "every root is a process, comm-PID" "$(cat "$tmpdir/roots")"
fi

# The lens file line.
cat >"$tmpdir/p.lens" <<'LENS'
# a lens
by-process
merge-function:^\[unknown\]$
LENS
"$TFLAME" collapse --by-process '--transform=merge-function:^\[unknown\]$' "$f" \
	>"$tmpdir/expected"
"$TFLAME" collapse --lens="$tmpdir/p.lens" "$f" >"$tmpdir/actual"
if [ -s "$tmpdir/expected" ] && cmp -s "$tmpdir/expected" "$tmpdir/actual"; then
	ok "a lens file's by-process line is --by-process"
else
	not_ok "a lens file's by-process line is --by-process" \
		"$(diff "$tmpdir/expected" "$tmpdir/actual" | head -10)"
fi
if "$TFLAME" report --lens="$tmpdir/p.lens" "$f" | grep -q '^lens      by process > merge '; then
	ok "report names the grouping in its lens line"
else
	not_ok "report names the grouping in its lens line" \
		"$("$TFLAME" report --lens="$tmpdir/p.lens" "$f" | grep lens)"
fi

# --diff compares whole files: it takes no grouping.
if "$TFLAME" collapse --diff --by-process "$f" "$f" >/dev/null 2>"$tmpdir/err"; then
	not_ok "collapse --diff --by-process is refused"
elif grep -q -- "--by-process" "$tmpdir/err"; then
	ok "collapse --diff --by-process is refused"
else
	not_ok "collapse --diff --by-process is refused" "$(cat "$tmpdir/err")"
fi
finish
