#!/bin/sh
# perf's inline frames (issue 36), live: tests/data/inline/inl.c built
# here, recorded with `perf record --call-graph dwarf` and with `-g`, and
# for every function `perf report --no-inline --children` counts at 2% or
# more, `report --search='^NAME$'` must give its share within half a point:
# from perf script's text and from perf.data, with symbols and without.
# Skipped (77) where there is no C compiler or perf cannot record.
#
# Without symbols the text has only perf script's names: a function perf
# printed "(inlined)" because its debug info names it otherwise than its
# symbol (sortrec for sortrec.constprop.0, work_impl for its alias work,
# glibc's __libc_start_main_impl) is found by that name there. perf.data
# is read with --no-inline, so it has perf report's names either way.

TFLAME_WITH_SYMBOLS=1
. "$top_srcdir/tests/lib.sh"

command -v cc >/dev/null 2>&1 || { echo "skipped: no C compiler"; exit 77; }
perf --version >/dev/null 2>&1 || { echo "skipped: no perf"; exit 77; }
prog=$tmpdir/inl
cc -g -O2 -fno-omit-frame-pointer -falign-functions=1 -o "$prog" \
	"$top_srcdir/tests/data/inline/inl.c" || { echo "skipped: cannot build inl.c"; exit 77; }
for rec in dwarf fp; do
	how=--call-graph=dwarf
	[ $rec = fp ] && how=-g
	if ! perf record -q $how -F 499 -o "$tmpdir/$rec.data" "$prog" 400000 \
		>/dev/null 2>"$tmpdir/err" || [ ! -s "$tmpdir/$rec.data" ]; then
		echo "skipped: perf cannot record here: $(head -1 "$tmpdir/err")"
		exit 77
	fi
	perf script -i "$tmpdir/$rec.data" >"$tmpdir/$rec.txt" 2>/dev/null
	perf report -i "$tmpdir/$rec.data" --no-inline --children --stdio -g none --sort sym \
		2>/dev/null | awk '$3 == "[.]" { sub(/%/, "", $1); print $4, $1 }' >"$tmpdir/$rec.perf"
done

# perf script's name for a function perf report names $1, in text $2.
script_name() {
	case $1 in
	sortrec.*) n=sortrec ;;
	work) n=work_impl ;;
	__libc_start_main@*) n=__libc_start_main_impl ;;
	*) echo "$1"; return ;;
	esac
	if grep -q " $n+0x[0-9a-f]* (inlined)" "$2"; then echo "$n"; else echo "$1"; fi
}

# The names perf report's are found by: its own, or in the text without
# symbols perf script's (script_name()).
same_name() {
	echo "$1"
}

text_name() {
	script_name "$1" "$tmpdir/$rec.txt"
}

# check REC FILE [OPTIONS]
check() {
	rec=$1 file=$2
	shift 2
	namer=same_name
	case "$file:$*" in
	*.txt:--no-symbols) namer=text_name ;;
	esac
	perf_shares "$tmpdir/$rec.perf" "$tmpdir/$file" $namer "$@"
	if [ -z "$shares_bad" ] && [ "$shares_n" -gt 3 ]; then
		ok "$rec, $file${*:+ $*}: the $shares_n functions perf report counts at 2% or more, within 0.5 points"
	else
		not_ok "$rec, $file${*:+ $*}: shares as perf report's" "$shares_n functions:$shares_bad"
	fi
}

for rec in dwarf fp; do
	for file in $rec.txt $rec.data; do
		check $rec $file
		check $rec $file --no-symbols
	done
done

finish
