# Shared by the shell tests. Sourced with top_srcdir, top_builddir and
# TFLAME set by make check (Makefile.am's AM_TESTS_ENVIRONMENT).

: "${top_srcdir:?run through make check}"
: "${TFLAME:?run through make check}"

LC_ALL=C.UTF-8
TZ=UTC
export LC_ALL TZ

# FlameGraph's scripts, for the tests that compare with them: the
# variables when set, else the copies in ../shared/reference beside the
# checkout (where CI and the team keep them), else none (those tests skip).
for ref_var in STACKCOLLAPSE_PERF:stackcollapse-perf.pl FLAMEGRAPH_PL:flamegraph.pl \
	       DIFFFOLDED_PL:difffolded.pl; do
	ref_file=$top_srcdir/../shared/reference/${ref_var#*:}
	ref_var=${ref_var%%:*}
	eval "ref_set=\${$ref_var:-}"
	if [ -z "$ref_set" ] && [ -f "$ref_file" ]; then
		eval "$ref_var=\$ref_file"
		export "${ref_var?}"
	fi
done

tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/tflame-test.XXXXXX") || exit 99
trap 'rm -rf "$tmpdir"' EXIT

# The binary itself, for a test that looks inside it: $TFLAME may become
# a wrapper below.
tflame_binary=$TFLAME

# make check-valgrind: every tflame a test starts runs under memcheck
# (tests/valgrind.sh), through a wrapper with the paths written in, so
# that it works from tmux's env -i too.
if [ -n "${TFLAME_VALGRIND:-}" ]; then
	cat >"$tmpdir/tflame" <<EOF || exit 99
#!/bin/sh
TFLAME_VALGRIND='$TFLAME_VALGRIND' exec '$top_srcdir/tests/valgrind.sh' --run '$TFLAME' "\$@"
EOF
	chmod +x "$tmpdir/tflame" || exit 99
	TFLAME=$tmpdir/tflame
fi

# Symbols come from this machine's binaries: tests that are not about
# them read perf's names only (TFLAME_NO_SYMBOLS, in tflame(1)), through a
# wrapper so that it reaches tflame under tmux's env -i too. A test about
# symbols sets TFLAME_WITH_SYMBOLS=1 before sourcing this file.
if [ -z "${TFLAME_WITH_SYMBOLS:-}" ]; then
	mkdir "$tmpdir/bin" || exit 99
	cat >"$tmpdir/bin/tflame" <<EOF || exit 99
#!/bin/sh
TFLAME_NO_SYMBOLS=1 exec '$TFLAME' "\$@"
EOF
	chmod +x "$tmpdir/bin/tflame" || exit 99
	TFLAME=$tmpdir/bin/tflame
fi

pass=0
fail=0

ok() {
	pass=$((pass + 1))
	printf 'ok %d - %s\n' $((pass + fail)) "$1"
}

not_ok() {
	fail=$((fail + 1))
	printf 'not ok %d - %s\n' $((pass + fail)) "$1"
	shift
	for line in "$@"; do
		printf '#   %s\n' "$line"
	done
}

# finish: the summary line, and the exit status automake expects.
finish() {
	printf '%d passed, %d failed\n' "$pass" "$fail"
	[ "$fail" -eq 0 ]
}
