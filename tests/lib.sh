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

# perf_shares PERF-LIST FILE NAMER [OPTIONS]: for every "name share" line
# of PERF-LIST (perf report's functions, shares in %) at 2% or more, the
# share `tflame report [OPTIONS] --search='^NAME$' FILE` gives, NAME being
# what the shell function NAMER prints for perf's name. Sets shares_n to
# how many were compared and shares_bad to those more than half a point
# off, each with both shares.
perf_shares() {
	ps_list=$1 ps_file=$2 ps_namer=$3
	shift 3
	shares_n=0 shares_bad=
	while read -r ps_fn ps_want; do
		awk -v w="$ps_want" 'BEGIN { exit !(w >= 2) }' || continue
		ps_name=$("$ps_namer" "$ps_fn")
		ps_pat=$(printf '%s' "$ps_name" | sed 's/[.]/\\./g')
		ps_got=$("$TFLAME" report "$@" --limit=0 --search="^$ps_pat\$" "$ps_file" 2>/dev/null </dev/null |
			sed -n 's/^matched.*(\([0-9.]*\)% of all).*/\1/p' | grep .) || ps_got=0
		shares_n=$((shares_n + 1))
		if ! awk -v a="$ps_want" -v b="$ps_got" 'BEGIN { d = a - b; exit !(d <= 0.5 && d >= -0.5) }'; then
			shares_bad="$shares_bad $ps_name: perf $ps_want%, tflame $ps_got%;"
		fi
	done <"$ps_list"
}

# finish: the summary line, and the exit status automake expects.
finish() {
	printf '%d passed, %d failed\n' "$pass" "$fail"
	[ "$fail" -eq 0 ]
}
