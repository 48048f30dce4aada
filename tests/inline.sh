#!/bin/sh
# perf's inline frames (issue 36): every function perf report counts keeps
# its share. On the recordings committed in tests/data/inline (see the
# README there), `report --search='^NAME$'` must give each function of
# `perf report --no-inline --children` at 2% or more the share perf gave
# it when it was recorded (*.perf-report), within half a point: from the
# dwarf text, whose "(inlined)" lines name the real functions
# sortrec.constprop.0 and work (an alias) by their debug info names, and
# from the fp text, with and without symbols.
#
# The text names the module /opt/tflame-test/inl, made the committed
# binary here; libc is /opt/tflame-test/libc.so.6, which no machine has,
# so that the answers do not depend on this machine's libc.

TFLAME_WITH_SYMBOLS=1
. "$top_srcdir/tests/lib.sh"

data=$top_srcdir/tests/data/inline
dir=$(cd "$data" && pwd) || exit 99
for r in dwarf fp; do
	sed "s|(/opt/tflame-test/inl)|($dir/inl)|" "$data/$r.txt" >"$tmpdir/$r.txt" || exit 99
done

# The name MODE finds a function perf report names $1 by. With symbols
# (and in the fp text, which has no inline lines), perf's own (the ELF
# symbol), but for libc's, which cannot be read here: perf script's
# "(inlined)" line names it by its debug info. Without symbols, every
# function the dwarf text printed "(inlined)" keeps that name.
name_sym() {
	case $1 in
	__libc_start_main@@GLIBC_2.34) echo __libc_start_main_impl ;;
	*) echo "$1" ;;
	esac
}

name_nosym() {
	case $1 in
	sortrec.constprop.0) echo sortrec ;;
	work) echo work_impl ;;
	*) name_sym "$1" ;;
	esac
}

# check REC MODE [OPTIONS]: every function of REC.perf-report at >= 2%,
# named as MODE names it, within 0.5 points.
check() {
	rec=$1 mode=$2
	shift 2
	perf_shares "$data/$rec.perf-report" "$tmpdir/$rec.txt" "name_$mode" "$@"
	if [ -z "$shares_bad" ] && [ "$shares_n" -gt 5 ]; then
		ok "$rec text${*:+ $*}: the $shares_n functions perf report counts at 2% or more, within 0.5 points"
	else
		not_ok "$rec text${*:+ $*}: shares as perf report's" "$shares_n functions:$shares_bad"
	fi
}

check dwarf sym
check dwarf nosym --no-symbols
check fp sym
check fp sym --no-symbols

# One function, one row: no function is both inlined and real in a stack.
"$TFLAME" report --limit=0 "$tmpdir/dwarf.txt" >"$tmpdir/report" 2>/dev/null
if grep -Eq ' inl +sortrec\.constprop\.0$' "$tmpdir/report" &&
   grep -Eq ' inl +work$' "$tmpdir/report" &&
   ! grep -Eq ' (sortrec|work_impl)$' "$tmpdir/report"; then
	ok "symbols: the real functions get perf report's names and their module"
else
	not_ok "symbols: the real functions get perf report's names" "$(sed -n '/by total/,$p' "$tmpdir/report")"
fi

# The recursion of sortrec.constprop.0, one frame a level as perf prints
# it: the deepest sample's stack is as deep with symbols as without.
depth() {
	"$TFLAME" export --to=folded "$@" "$tmpdir/dwarf.txt" 2>/dev/null |
		awk '{ n = split($1, f, ";"); c = 0; for (i = 1; i <= n; i++) c += f[i] ~ /^sortrec/; if (c > m) m = c } END { print m + 0 }'
}
d_sym=$(depth)
if [ "$d_sym" -gt 10 ] && [ "$d_sym" = "$(depth --no-symbols)" ]; then
	ok "a level of recursion is a frame ($d_sym levels deep)"
else
	not_ok "a level of recursion is a frame" "with symbols $d_sym, without $(depth --no-symbols)"
fi

# Return addresses (issue 36, point 11): in the fp recording the call of
# die() is finish()'s last instruction, so its return address is the first
# byte of after_finish(), which perf names it by. Looked up one byte back,
# its line is finish()'s call of die().
line=$(grep -n 'die(x);' "$data/inl.c" | cut -d: -f1)
"$TFLAME" report --lines --limit=0 "$tmpdir/fp.txt" >"$tmpdir/lines" 2>/dev/null
if [ -n "$line" ] && grep -Eq "inl\.c:$line +after_finish$" "$tmpdir/lines" &&
   [ -z "$(grep -E ' after_finish$' "$tmpdir/lines" | grep -v "inl\.c:$line ")" ]; then
	ok "a return address after a noreturn call gets its call's line (inl.c:$line)"
else
	not_ok "a return address after a noreturn call gets its call's line" \
		"$(grep after_finish "$tmpdir/lines")"
fi

finish
