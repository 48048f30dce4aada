#!/bin/sh
# perf.data read natively (TFLAME_PERFDATA=native, perfdata_read.h) against
# today's route through perf script: on recordings made here, of a small
# C program and of one heavy with system calls that forks, in the file
# format, the pipe format, compressed (-z) and with two events, report
# (samples, threads, every function's share) and collapse (every stack)
# must be the same, with and without symbols. Then what needs no perf: the
# committed recordings with no perf in PATH, from standard input, and
# --format=perf.data-native. Recording is skipped (77 when nothing else
# ran) where perf or a C compiler is missing or perf may not record.

TFLAME_WITH_SYMBOLS=1
. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 99
data=tests/data/perfdata

# same NAME ARGS...: both routes print the same, and exit 0. With
# nosym=1, perf's names alone (TFLAME_NO_SYMBOLS, for collapse).
nosym=
same() {
	name=$1
	shift
	TFLAME_NO_SYMBOLS=$nosym "$TFLAME" "$@" >"$tmpdir/script.out" 2>"$tmpdir/script.err"
	s1=$?
	TFLAME_NO_SYMBOLS=$nosym TFLAME_PERFDATA=native "$TFLAME" "$@" \
		>"$tmpdir/native.out" 2>"$tmpdir/native.err"
	s2=$?
	if [ $s1 -ne 0 ] || [ $s2 -ne 0 ]; then
		not_ok "$name" "exit $s1 (perf script), $s2 (native)" \
			"$(head -3 "$tmpdir/script.err" "$tmpdir/native.err")"
	elif diff -u "$tmpdir/script.out" "$tmpdir/native.out" >"$tmpdir/diff"; then
		ok "$name"
	else
		not_ok "$name" "$(head -30 "$tmpdir/diff")"
	fi
}

# The committed recordings need no perf at all.
for f in native-fp native-pipe native-z native-two native-dwarf; do
	if PATH=/nonexistent TFLAME_PERF= TFLAME_PERFDATA=native \
		"$TFLAME" report --no-symbols $data/$f.data >"$tmpdir/out" 2>"$tmpdir/err" &&
	   grep -q '^samples ' "$tmpdir/out"; then
		ok "$f.data read with no perf in PATH"
	else
		not_ok "$f.data read with no perf in PATH" "$(head -3 "$tmpdir/err")"
	fi
done
if TFLAME_PERFDATA=native "$TFLAME" collapse - <$data/native-pipe.data \
	>"$tmpdir/stdin.out" 2>"$tmpdir/err" &&
   TFLAME_PERFDATA=native "$TFLAME" collapse $data/native-pipe.data \
	>"$tmpdir/file.out" 2>>"$tmpdir/err" && [ -s "$tmpdir/file.out" ] &&
   cmp -s "$tmpdir/file.out" "$tmpdir/stdin.out"; then
	ok "the pipe format from standard input"
else
	not_ok "the pipe format from standard input" "$(head -3 "$tmpdir/err")"
fi
if "$TFLAME" report --no-symbols --format=perf.data-native $data/native-two.data \
	>"$tmpdir/out" 2>"$tmpdir/err" && grep -q 'task-clock' "$tmpdir/out"; then
	ok "--format=perf.data-native"
else
	not_ok "--format=perf.data-native" "$(head -3 "$tmpdir/err")"
fi
# A cut recording: the records before the cut, and a warning naming the byte.
head -c 5000 $data/native-fp.data >"$tmpdir/cut.data"
if TFLAME_PERFDATA=native "$TFLAME" report --no-symbols "$tmpdir/cut.data" \
	>"$tmpdir/out" 2>"$tmpdir/err" && grep -q 'warning: byte [0-9]*: .*cut' "$tmpdir/err"; then
	ok "a cut recording loads with a warning"
else
	not_ok "a cut recording loads with a warning" "$(head -3 "$tmpdir/err")"
fi
# Not a perf.data inside: an error naming the byte.
printf 'PERFILE2\020\000\000\000\000\000\000\000\011\000\000\000\000\000\000\000' \
	>"$tmpdir/bad.data"
TFLAME_PERFDATA=native "$TFLAME" report "$tmpdir/bad.data" >/dev/null 2>"$tmpdir/err"
if [ $? -eq 1 ] && grep -q "bad.data: byte 16: record of type 9 has a size of 0 bytes" \
	"$tmpdir/err"; then
	ok "a broken record is an error naming its byte"
else
	not_ok "a broken record is an error naming its byte" "$(cat "$tmpdir/err")"
fi

# Recordings made here, compared with perf script's route.
if ! perf --version >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1 ||
   ! perf record -q -o "$tmpdir/probe.data" -g -- true >/dev/null 2>&1; then
	echo "perf cannot record here, or no C compiler: comparisons skipped"
	finish
	exit $?
fi
cat >"$tmpdir/loop.c" <<'EOF'
static volatile long sink;
__attribute__((noinline)) static long inner(long i) { return i * 7 % 13; }
__attribute__((noinline)) static void outer(long n)
{
	for (long i = 0; i < n; i++)
		sink += inner(i);
}
int main(void) { outer(60000000); return 0; }
EOF
# System calls in two processes. -fno-plt: perf's name for a sample in
# the first PLT entries depends on the shape of its symbol tree, where
# _init, stretched to the next symbol, overlaps them ("_init" or
# "write@plt"); the native reader always says "write@plt" (PLT names are
# checked in tests/unit/test_perfdata_read.c).
cat >"$tmpdir/sys.c" <<'EOF'
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
static void work(void)
{
	char b[64] = { 0 };
	int fd = open("/dev/null", O_WRONLY);

	for (long i = 0; i < 150000; i++) {
		write(fd, b, sizeof(b));
		getppid();
	}
	close(fd);
}
int main(void) { pid_t p = fork(); work(); if (p > 0) waitpid(p, 0, 0); return 0; }
EOF
cc -O1 -fno-omit-frame-pointer -o "$tmpdir/loop" "$tmpdir/loop.c" &&
	cc -O1 -fno-plt -fno-omit-frame-pointer -o "$tmpdir/sys" "$tmpdir/sys.c" ||
	{ echo "cannot build the test programs"; finish; exit $?; }

if perf record -q -g -o "$tmpdir/fp.data" -- "$tmpdir/loop" >/dev/null 2>&1; then
	same "fp recording: report --no-symbols" report --no-symbols --limit=0 "$tmpdir/fp.data"
	same "fp recording: report" report --limit=0 "$tmpdir/fp.data"
	nosym=1
	same "fp recording: collapse, perf's names" collapse "$tmpdir/fp.data"
	nosym=
else
	not_ok "fp recording: a recording" "perf record failed"
fi
if perf record -q -g -o "$tmpdir/sys.data" -- "$tmpdir/sys" >/dev/null 2>&1; then
	same "system calls: report --no-symbols" report --no-symbols --limit=0 "$tmpdir/sys.data"
	same "system calls: report" report --limit=0 "$tmpdir/sys.data"
	nosym=1
	same "system calls: collapse, perf's names" collapse "$tmpdir/sys.data"
	nosym=
else
	not_ok "system calls: a recording" "perf record failed"
fi
if perf record -q -g -o - -- "$tmpdir/loop" 2>/dev/null >"$tmpdir/pipe.data"; then
	same "pipe format: report --no-symbols" report --no-symbols --limit=0 "$tmpdir/pipe.data"
fi
if perf record -q -z -g -o "$tmpdir/z.data" -- "$tmpdir/sys" >/dev/null 2>&1; then
	same "compressed (-z): report --no-symbols" report --no-symbols --limit=0 "$tmpdir/z.data"
	nosym=1
	same "compressed (-z): collapse, perf's names" collapse "$tmpdir/z.data"
	nosym=
fi
if perf record -q -e cpu-clock,task-clock -g -o "$tmpdir/two.data" -- "$tmpdir/sys" \
	>/dev/null 2>&1; then
	same "two events: report --event=task-clock" report --no-symbols --limit=0 \
		--event=task-clock "$tmpdir/two.data"
	nosym=1
	same "two events: collapse --event=cpu-clock, perf's names" collapse \
		--event=cpu-clock "$tmpdir/two.data"
	nosym=
fi
finish
