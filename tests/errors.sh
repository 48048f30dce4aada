#!/bin/sh
# Bad input and bad usage: one clear line on stderr naming the file, the
# documented exit status (1 bad input, 2 bad usage), nothing on stdout and
# never a crash.

. "$top_srcdir/tests/lib.sh"

# expect STATUS PATTERN DESCRIPTION -- ARGS...
expect() {
	want=$1 pattern=$2 what=$3
	shift 4
	"$TFLAME" "$@" >"$tmpdir/out" 2>"$tmpdir/err"
	status=$?
	lines=$(wc -l <"$tmpdir/err")
	if [ "$status" -ne "$want" ]; then
		not_ok "$what" "exit $status, want $want" "$(head -3 "$tmpdir/err")"
	elif ! grep -q -- "$pattern" "$tmpdir/err"; then
		not_ok "$what" "stderr lacks '$pattern'" "$(head -3 "$tmpdir/err")"
	elif [ "$want" -eq 1 ] && [ -s "$tmpdir/out" ]; then
		not_ok "$what" "output on stdout for a failed run"
	elif [ "$want" -eq 1 ] && [ "$lines" -ne 1 ]; then
		not_ok "$what" "$lines lines on stderr, want 1" "$(head -3 "$tmpdir/err")"
	else
		ok "$what"
	fi
}

d=$tmpdir
mkdir "$d/dir"
: >"$d/empty.txt"
head -c 4096 /dev/urandom >"$d/garbage.bin"
printf '\0\0\0\0binary\0\0' >>"$d/garbage.bin"
printf 'hello world\nthis is not a profile\n' >"$d/prose.txt"
printf 'main;f 1\nmain;g 2\n' >"$d/ok.folded"
# Compressed streams cut before anything could be decompressed (a cut
# after some data reads it: tests/truncated.sh).
seq 1 20000 | sed 's/^/main;f;g /' | gzip -c >"$d/full.gz"
head -c 10 "$d/full.gz" >"$d/truncated.gz"
if command -v zstd >/dev/null 2>&1; then
	seq 1 20000 | sed 's/^/main;f;g /' | zstd -q -c >"$d/full.zst"
	head -c 2000 "$d/full.zst" >"$d/truncated.zst"
fi

for sub in report collapse; do
	expect 1 "missing.txt: No such file" "$sub: missing file" -- $sub "$d/missing.txt"
	expect 1 "dir" "$sub: a directory" -- $sub "$d/dir"
	# collapse writes nothing for it and succeeds, as stackcollapse-perf.pl (tests/edges.sh).
	if [ $sub = collapse ]; then
		expect 0 "empty.txt: warning: no samples (the input is empty)" "$sub: empty file" -- \
			$sub "$d/empty.txt"
	else
		expect 1 "empty.txt.*empty" "$sub: empty file" -- $sub "$d/empty.txt"
	fi
	expect 1 "garbage.bin.*binary" "$sub: binary garbage" -- $sub "$d/garbage.bin"
	expect 1 "prose.txt.*unknown format" "$sub: unknown format" -- $sub "$d/prose.txt"
	expect 1 "truncated.gz.*truncated gzip" "$sub: truncated gzip" -- $sub "$d/truncated.gz"
	if [ -f "$d/truncated.zst" ]; then
		expect 1 "truncated.zst.*truncated zstd" "$sub: truncated zstd" -- $sub "$d/truncated.zst"
	fi
	if [ $sub = collapse ]; then
		expect 0 "warning: no samples" "$sub: empty stdin" -- $sub - <"$d/empty.txt"
	else
		expect 1 "<stdin>.*empty" "$sub: empty stdin" -- $sub - <"$d/empty.txt"
	fi
	expect 2 "unknown option --bogus" "$sub: unknown option" -- $sub --bogus "$d/ok.folded"
	expect 2 "no input file" "$sub: no file" -- $sub
	expect 2 "unknown format 'nope' (valid: perf, folded, .*cprofile" "$sub: bad --format" -- $sub --format=nope "$d/ok.folded"
	expect 2 "weight" "$sub: bad --weight" -- $sub --weight=bytes "$d/ok.folded"
done
expect 2 "no event named nope" "report: unknown event" -- report --event=nope "$d/ok.folded"
expect 2 "--ignore-module compare: they need --diff" "collapse: --ignore-module alone" -- \
	collapse --ignore-module "$d/ok.folded"
# A file in no format says which it most resembles, and that one's error
# with its line (the list of formats tried between is left to the regex).
f=$top_srcdir/tests/data/foreign
expect 1 "stacks-no-counts.txt:1: unknown format (tried .*); most like folded stacks, which fails at line 1: no valid folded stack line (3 bad), first: missing count: \"main;parse;lex\"" \
	"unknown text: most like folded stacks" -- report "$f/stacks-no-counts.txt"
expect 1 "no-profile.json: unknown format (tried .*); most like speedscope, which fails: no samples found" \
	"unknown JSON: most like speedscope" -- report "$f/no-profile.json"
expect 1 "gap.bad:3: symbol at depth 3 under a row at depth 0: a level is missing" \
	"Instruments: a row under no parent" -- report "$top_srcdir/tests/data/instruments/gap.bad"
# --event takes a part of a name when one event alone has it; otherwise the
# message lists the events it could mean, or all of them.
events=$top_srcdir/tests/data/recorded/event-names.txt
for sub in report dump; do
	expect 2 "event-names.txt: event cpu-clock is ambiguous: it could be cpu-clock:k, cpu-clock:u$" \
		"$sub: ambiguous short event name" -- $sub --event=cpu-clock "$events"
	expect 2 "event-names.txt: no event named sched_wakeup (events: sched:sched_process_exec, sched:sched_switch, cpu-clock:k, cpu-clock:u)$" \
		"$sub: absent event lists the events" -- $sub --event=sched_wakeup "$events"
done
expect 2 "no thread with tid 999" "report: unknown thread" -- report --thread=999 "$d/ok.folded"
expect 2 "limit" "report: bad --limit" -- report --limit=x "$d/ok.folded"
expect 2 "no profile given" "no arguments" --
# The explorer's comparison: two files, each named when it cannot be read,
# before a terminal is asked for.
expect 2 "one profile, or BASE and NEW to compare (got 3 files)" "explorer: three files" -- "$d/ok.folded" "$d/ok.folded" "$d/ok.folded"
expect 1 "cannot open .*missing.txt: No such file" "explorer: missing BASE" -- "$d/missing.txt" "$d/ok.folded"
expect 1 "cannot open .*missing.txt: No such file" "explorer: missing NEW" -- diff "$d/ok.folded" "$d/missing.txt"
expect 2 "a comparison takes two input files, BASE and NEW (got 1)" "diff: one file" -- diff "$d/ok.folded"
expect 2 "a comparison takes two input files, BASE and NEW (got 1)" "explorer: --diff, one file" -- --diff "$d/ok.folded"
expect 1 "cannot open .*missing.txt: No such file" "explorer: --diff, missing NEW" -- --diff "$d/ok.folded" "$d/missing.txt"
expect 2 "ignore-module compares" "explorer: --ignore-module, one file" -- --ignore-module "$d/ok.folded"
expect 2 "cannot both be stdin" "explorer: stdin twice" -- - -
expect 2 "unknown option --frobnicate" "unknown global option" -- --frobnicate

# Every --format value the registry knows is named in --help.
valid=$("$TFLAME" report --format=nope /dev/null 2>&1 | sed -n "s/.*(valid: \(.*\))\$/\1/p" | tr -d ',')
missing=
for fmt in $valid; do
	"$TFLAME" report --help | tr -d ',' | grep -qw -- "$fmt" || missing="$missing $fmt"
done
if [ -n "$valid" ] && [ -z "$missing" ]; then
	ok "--help names every format"
else
	not_ok "--help names every format" "valid: $valid" "missing:$missing"
fi

# Unreadable files: root reads anything, so only test as another user.
if [ "$(id -u)" -ne 0 ]; then
	cp "$d/ok.folded" "$d/secret.folded"
	chmod 000 "$d/secret.folded"
	expect 1 "secret.folded: Permission denied" "unreadable file" -- report "$d/secret.folded"
fi

# Good input through stdin and compressed files works.
if "$TFLAME" collapse - <"$d/ok.folded" | grep -q '^main;g 2$'; then
	ok "stdin works"
else
	not_ok "stdin works"
fi
if "$TFLAME" collapse "$d/full.gz" | grep -q '^main;f;g 200010000$'; then
	ok "gzip input works"
else
	not_ok "gzip input works" "$("$TFLAME" collapse "$d/full.gz" 2>&1 | head -3)"
fi
# --max-samples: the first N samples, one warning line, exit 0; every
# command takes it, and N must be a number above 0.
seq 1 20000 | sed 's/^/main;f;g /' >"$d/many.folded"
for sub in report dump collapse; do
	"$TFLAME" $sub --max-samples=5 "$d/many.folded" >"$d/out" 2>"$d/err"
	status=$?
	if [ $status -eq 0 ] && [ "$(wc -l <"$d/err")" -eq 1 ] &&
	   grep -q "many.folded: warning: stopped after 5 samples (--max-samples)\$" "$d/err"; then
		ok "$sub --max-samples=5: exit 0, one warning line"
	else
		not_ok "$sub --max-samples=5: exit 0, one warning line" "exit $status" \
			"$(head -3 "$d/err")"
	fi
done
"$TFLAME" report --max-samples=5 "$d/many.folded" 2>/dev/null >"$d/out"
if grep -q '^samples   5$' "$d/out"; then
	ok "report --max-samples=5: 5 samples kept"
else
	not_ok "report --max-samples=5: 5 samples kept" "$(head -5 "$d/out")"
fi
if [ "$("$TFLAME" collapse --max-samples=3 "$d/many.folded" 2>/dev/null)" = "main;f;g 6" ]; then
	ok "collapse --max-samples=3: the first 3 samples (1 + 2 + 3)"
else
	not_ok "collapse --max-samples=3: the first 3 samples (1 + 2 + 3)"
fi
"$TFLAME" report --max-samples=20000 "$d/many.folded" >/dev/null 2>"$d/err"
if [ $? -eq 0 ] && [ ! -s "$d/err" ]; then
	ok "--max-samples=N with exactly N samples: no warning"
else
	not_ok "--max-samples=N with exactly N samples: no warning" "$(head -3 "$d/err")"
fi
expect 2 "max-samples takes a number above 0, not '0'" "--max-samples=0" -- \
	report --max-samples=0 "$d/many.folded"
expect 2 "max-samples takes a number above 0, not 'lots'" "--max-samples=lots" -- \
	dump --max-samples=lots "$d/many.folded"
# Usage errors are told before the load: a FIFO no one writes to would
# block the open, so each must end at once, exit 2.
mkfifo "$d/nobody.fifo"
for args in "report --time=5,3" "collapse --time=,x" "dump --search=(" "export --comm=(" \
	    "report --transform=bogus:x" "--time=50%,10%"; do
	# shellcheck disable=SC2086
	timeout -k 2 5 "$TFLAME" $args "$d/nobody.fifo" </dev/null >/dev/null 2>"$d/err"
	status=$?
	if [ $status -eq 2 ] && [ "$(wc -l <"$d/err")" -eq 1 ]; then
		ok "a usage error before the load: $args"
	else
		not_ok "a usage error before the load: $args" "exit $status" "$(head -2 "$d/err")"
	fi
done

if "$TFLAME" --help | grep -q -- "--max-samples" && "$TFLAME" collapse --help | grep -q -- "--max-samples"; then
	ok "--help names --max-samples"
else
	not_ok "--help names --max-samples"
fi

finish
