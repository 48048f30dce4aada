#!/bin/sh
# Symbols: tflame's libdw answers against addr2line's, on a program built
# here with -g -O2 (tests/data/symbols/prog.c: inner() inlined into
# middle() into outer()). perf script text is written from the program's
# own addresses, so these checks need no perf; the last part records the
# program with perf where perf can record, and is skipped where it cannot.
# Needs cc and addr2line (binutils): skipped (77) without them.

TFLAME_WITH_SYMBOLS=1
. "$top_srcdir/tests/lib.sh"

command -v cc >/dev/null 2>&1 || { echo "skipped: no C compiler"; exit 77; }
command -v addr2line >/dev/null 2>&1 || { echo "skipped: no addr2line"; exit 77; }
command -v objdump >/dev/null 2>&1 || { echo "skipped: no objdump"; exit 77; }

src=$top_srcdir/tests/data/symbols/prog.c
prog=$tmpdir/prog
cc -g -O2 -o "$prog" "$src" || { echo "skipped: cannot build the test program"; exit 77; }

# The [start, end) of a function symbol, in hex without 0x.
sym_range() {
	nm -S "$1" | awk -v f="$2" '$4 == f { print $1, $2 }'
}
# Every instruction address of function $2 in $1, inside its symbol.
insn_addrs() {
	set -- "$1" "$2" $(sym_range "$1" "$2")
	objdump -d --no-show-raw-insn "$1" |
	awk -v s="$3" -v n="$4" '
		function hex(x,   i, c, v) {
			v = 0
			for (i = 1; i <= length(x); i++) {
				c = index("0123456789abcdef", substr(x, i, 1)) - 1
				v = v * 16 + c
			}
			return v
		}
		/^ *[0-9a-f]+:/ {
			a = $1; sub(/:$/, "", a)
			if (hex(a) >= hex(s) && hex(a) < hex(s) + hex(n)) print a
		}'
}
# The address after driver()'s call to outer(): a return address.
ret_addr=$(objdump -d --no-show-raw-insn "$prog" |
	awk '/call.*<outer>/ { getline; a = $1; sub(/:$/, "", a); print a; exit }')

# addr2line's chain for $2 in $1 as stackcollapse-perf.pl --inline
# [--context] ($3 = 1) makes it: outermost first, joined by ';'.
a2l_chain() {
	addr2line -a "0x$2" -e "$1" -i -f -s -C | sed 1d |
	awk -v ctx="$3" '
		NR % 2 == 1 { fn = $0; next }
		{ sub(/ \(discriminator [^)]*\)/, ""); it[++n] = ctx ? fn ":" $0 : fn }
		END { for (i = n; i >= 1; i--) printf "%s%s", it[i], (i > 1 ? ";" : ""); print "" }'
}

# A perf script sample per address: leaf in outer(), caller in driver().
outer_addrs=$(insn_addrs "$prog" outer)
[ -n "$outer_addrs" ] && [ -n "$ret_addr" ] || { echo "skipped: cannot read the program's code"; exit 77; }
: >"$tmpdir/synth.txt"
for a in $outer_addrs; do
	printf 'prog 100 1.000000: 1 cycles:\n\t%s outer+0x0 (%s)\n\t%s driver+0x17 (%s)\n\n' \
		"$a" "$prog" "$ret_addr" "$prog" >>"$tmpdir/synth.txt"
done

# collapse --inline and --context: exactly what the script would write,
# line for line, from addr2line's answers.
for ctx in 0 1; do
	opt=--inline
	[ $ctx = 1 ] && opt="--inline --context"
	caller=$(a2l_chain "$prog" "$ret_addr" $ctx)
	for a in $outer_addrs; do
		printf 'prog;%s;%s 1\n' "$caller" "$(a2l_chain "$prog" "$a" $ctx)"
	done | LC_ALL=C sort | awk '
		{ w = $NF; k = substr($0, 1, length($0) - length(w) - 1); c[k] += w; if (!(k in o)) { o[k] = ++n; key[n] = k } }
		END { for (i = 1; i <= n; i++) print key[i], c[key[i]] }' >"$tmpdir/expected"
	# shellcheck disable=SC2086
	"$TFLAME" collapse $opt "$tmpdir/synth.txt" >"$tmpdir/actual" 2>"$tmpdir/err"
	if cmp -s "$tmpdir/expected" "$tmpdir/actual" && [ ! -s "$tmpdir/err" ]; then
		ok "collapse $opt: addr2line's chains for all $(echo $outer_addrs | wc -w) addresses of outer()"
	else
		not_ok "collapse $opt: addr2line's chains" "$(diff "$tmpdir/expected" "$tmpdir/actual" | head -5)" \
			"$(head -2 "$tmpdir/err")"
	fi
done
if "$TFLAME" collapse --inline "$tmpdir/synth.txt" | grep -q '^prog;driver;outer;middle;inner '; then
	ok "collapse --inline: the chain is driver;outer;middle;inner"
else
	not_ok "collapse --inline: the chain is driver;outer;middle;inner"
fi
# Without --inline, perf's names as before.
if "$TFLAME" collapse "$tmpdir/synth.txt" | grep -qx "prog;driver;outer $(echo $outer_addrs | wc -w)"; then
	ok "collapse without --inline keeps perf's frames"
else
	not_ok "collapse without --inline keeps perf's frames" "$("$TFLAME" collapse "$tmpdir/synth.txt" | head -3)"
fi

# The loaded profile: inline frames as frames of their own, in the
# program's module, under outer(); --no-symbols and TFLAME_NO_SYMBOLS
# keep perf's names.
n=$(echo $outer_addrs | wc -w)
"$TFLAME" report --limit=0 "$tmpdir/synth.txt" >"$tmpdir/report" 2>"$tmpdir/err"
if grep -Eq "^ +[0-9]+ +[0-9.]+% +$n +100% +prog +outer$" "$tmpdir/report" &&
   grep -Eq " prog +middle$" "$tmpdir/report" && grep -Eq " prog +inner$" "$tmpdir/report" &&
   [ ! -s "$tmpdir/err" ]; then
	ok "report: middle and inner appear as functions of prog"
else
	not_ok "report: middle and inner appear as functions of prog" "$(sed -n '/by total/,$p' "$tmpdir/report")" \
		"$(cat "$tmpdir/err")"
fi
"$TFLAME" dump --view=left-heavy --width=60 --height=8 "$tmpdir/synth.txt" >"$tmpdir/dump"
if [ "$(cut -c1-6 "$tmpdir/dump" | sed -n '2,5p' | tr -d ' |' | tr '\n' ,)" = "driver,outer,middle,inner," ]; then
	ok "dump: driver, outer, middle, inner, one above the other"
else
	not_ok "dump: driver, outer, middle, inner" "$(cat "$tmpdir/dump")"
fi
for how in --no-symbols TFLAME_NO_SYMBOLS; do
	if [ $how = --no-symbols ]; then
		"$TFLAME" report --no-symbols --limit=0 "$tmpdir/synth.txt" >"$tmpdir/report"
	else
		TFLAME_NO_SYMBOLS=1 "$TFLAME" report --limit=0 "$tmpdir/synth.txt" >"$tmpdir/report"
	fi
	if grep -Eq " prog +outer$" "$tmpdir/report" && ! grep -q "middle" "$tmpdir/report"; then
		ok "$how: no inline frames"
	else
		not_ok "$how: no inline frames" "$(sed -n '/by total/,$p' "$tmpdir/report")"
	fi
done

# Source positions: every sample has driver()'s call of outer() on its
# path, counted once per sample by report --lines; inner()'s loop and
# middle()'s call of it, inlined, have lines of their own.
# The exact numbers and the full path from report --json, one line of
# the table a line of text; the text report cuts long paths.
"$TFLAME" report --lines --json --limit=0 "$tmpdir/synth.txt" 2>"$tmpdir/err" |
	tr -d ' \n' | sed 's/},{/}\n{/g' >"$tmpdir/lines.json"
"$TFLAME" report --lines --limit=0 "$tmpdir/synth.txt" >"$tmpdir/lines" 2>>"$tmpdir/err"
l_middle=$(grep -n 'return inner(x) ^ (12345 + sink);' "$src" | cut -d: -f1)
l_driver=$(grep -n 'acc += outer(i);' "$src" | cut -d: -f1)
l_inner=$(grep -n 'x = x \* 6364136223846793005UL + sink;' "$src" | cut -d: -f1)
# line_row LINE FUNCTION: the JSON row of that line of prog.c.
line_row() {
	grep -F "\"file\":\"$(printf %s "$src" | tr -d ' ')\",\"line\":$1,\"function\":\"$2\"," \
		"$tmpdir/lines.json"
}
if line_row "$l_driver" driver | grep -Fq '"self":0,' &&
   line_row "$l_driver" driver | grep -Fq "\"total\":$n," &&
   line_row "$l_middle" middle | grep -Eq '"self":[1-9][0-9]*,' &&
   line_row "$l_inner" inner | grep -Eq '"self":[1-9][0-9]*,' &&
   grep -Eq "^ +0 +0% +$n +100% +[^ ]*/prog\.c:$l_driver +driver$" "$tmpdir/lines" &&
   [ ! -s "$tmpdir/err" ]; then
	ok "report --lines: driver's call line carries every sample; inlined lines their own"
else
	not_ok "report --lines: positions from the symbolizer" "$(sed -n '/source lines/,$p' "$tmpdir/lines")"
fi

# [unknown] gets its name; perf's own (inlined) lines give way to the chain.
leaf=$(echo $outer_addrs | cut -d' ' -f5)
printf 'prog 100 1.0: 1 cycles:\n\t%s [unknown] (%s)\n\t%s driver+0x17 (%s)\n\n' \
	"$leaf" "$prog" "$ret_addr" "$prog" >"$tmpdir/unknown.txt"
printf 'prog 100 1.0: 1 cycles:\n\t%s inner+0x0 (inlined)\n\t%s middle+0x0 (inlined)\n\t%s outer+0x0 (%s)\n\n' \
	"$leaf" "$leaf" "$leaf" "$prog" >"$tmpdir/inlined.txt"
if "$TFLAME" report "$tmpdir/unknown.txt" | grep -Eq " prog +outer$" &&
   ! "$TFLAME" report "$tmpdir/unknown.txt" | grep -Eq '\[(unknown|prog)'; then
	ok "an [unknown] frame gets its function's name"
else
	not_ok "an [unknown] frame gets its function's name" "$("$TFLAME" report "$tmpdir/unknown.txt" | tail -6)"
fi
# One that no symbol covers is named after its module, with --addrs its
# address too; the symbols still name the other.
printf 'prog 100 1.0: 1 cycles:\n\t1 [unknown] (%s)\n\t%s [unknown] (%s)\n\t%s driver+0x17 (%s)\n\n' \
	"$prog" "$leaf" "$prog" "$ret_addr" "$prog" >"$tmpdir/unnamed.txt"
for addrs in "" --addrs; do
	name="[prog]"
	[ -n "$addrs" ] && name="[prog+0x1]"
	"$TFLAME" report $addrs "$tmpdir/unnamed.txt" >"$tmpdir/report" 2>/dev/null
	if [ "$(awk -v n="$name" 'NF > 1 && $(NF - 1) == "prog" && $NF == n' "$tmpdir/report" | wc -l)" = 2 ] &&
	   grep -Eq " prog +outer$" "$tmpdir/report" &&
	   [ "$(grep -c '\[' "$tmpdir/report")" = 2 ]; then
		ok "report${addrs:+ $addrs}: a frame no symbol names is $name"
	else
		not_ok "report${addrs:+ $addrs}: a frame no symbol names is $name" "$(sed -n '/by self/,$p' "$tmpdir/report")"
	fi
done
"$TFLAME" report "$tmpdir/inlined.txt" >"$tmpdir/report"
if [ "$(grep -c ' inner$' "$tmpdir/report")" = 2 ] && ! grep -Eq ' - +inner$' "$tmpdir/report"; then
	ok "perf's (inlined) frames are replaced by the chain, not doubled"
else
	not_ok "perf's (inlined) frames are replaced by the chain" "$(sed -n '/by self/,$p' "$tmpdir/report")"
fi

# A rebuilt binary: perf's names no longer match its symbols, so its
# frames keep perf's names and one warning says so.
cp "$prog" "$tmpdir/prog.orig"
cc -g -O2 -DSHIFTED -o "$prog" "$src"
"$TFLAME" report "$tmpdir/synth.txt" >"$tmpdir/report" 2>"$tmpdir/err"
if grep -q "1 module changed since the recording ($prog)" "$tmpdir/err" &&
   ! grep -q middle "$tmpdir/report" && grep -Eq " prog +outer$" "$tmpdir/report"; then
	ok "a rebuilt module keeps perf's names, with a warning"
else
	not_ok "a rebuilt module keeps perf's names" "$(cat "$tmpdir/err")" "$(tail -4 "$tmpdir/report")"
fi
"$TFLAME" report --verbose "$tmpdir/synth.txt" >/dev/null 2>"$tmpdir/err"
if grep -q "perf's outer at 0x[0-9a-f]* is not there" "$tmpdir/err"; then
	ok "--verbose names the frames that disagreed"
else
	not_ok "--verbose names the frames that disagreed" "$(cat "$tmpdir/err")"
fi
mv "$tmpdir/prog.orig" "$prog"
# --verbose says how many addresses were looked up, and how long it took.
"$TFLAME" report --verbose "$tmpdir/synth.txt" >/dev/null 2>"$tmpdir/err"
if grep -Eq "symbols: [0-9]+ address(es)? in 1 module looked up in [0-9]+ ms \([0-9]+ threads?\), [0-9]+ stacks rebuilt as [0-9]+ in [0-9]+ ms" "$tmpdir/err"; then
	ok "--verbose times the lookups and the rebuild"
else
	not_ok "--verbose times the lookups and the rebuild" "$(cat "$tmpdir/err")"
fi
"$TFLAME" report "$tmpdir/synth.txt" >/dev/null 2>"$tmpdir/err"
if grep -q "looked up in" "$tmpdir/err"; then
	not_ok "without --verbose, no timing" "$(cat "$tmpdir/err")"
else
	ok "without --verbose, no timing"
fi
# A module rebuilt zero times, with one frame, whose name perf gave from
# another symbol (as a register_tm_clones frame did on a fresh gcc
# recording): one name is not enough to distrust it.
for a in $outer_addrs; do
	a2l_chain "$prog" "$a" 0 | grep -q middle && break
done
printf 'prog 100 1.000000: 1 cycles:\n\t%s driver+0x0 (%s)\n\n' "$a" "$prog" >"$tmpdir/one-off.txt"
"$TFLAME" report "$tmpdir/one-off.txt" >"$tmpdir/report" 2>"$tmpdir/err"
if ! grep -q "changed since" "$tmpdir/err" && grep -q " middle$" "$tmpdir/report"; then
	ok "one disagreeing name does not make a module rebuilt"
else
	not_ok "one disagreeing name does not make a module rebuilt" "$(cat "$tmpdir/err")" \
		"$(head -3 "$tmpdir/one-off.txt")"
fi
# A module that is not there: perf's names, nothing to say.
sed "s|$prog|/nonexistent/prog|" "$tmpdir/synth.txt" >"$tmpdir/gone.txt"
"$TFLAME" report "$tmpdir/gone.txt" >"$tmpdir/report" 2>"$tmpdir/err"
if [ ! -s "$tmpdir/err" ] && grep -Eq " prog +outer$" "$tmpdir/report"; then
	ok "a missing module: perf's names, no warning"
else
	not_ok "a missing module" "$(cat "$tmpdir/err")"
fi

# A non-PIE executable: perf prints file offsets, addr2line wants the
# virtual address; both must name the same chain.
if cc -g -O2 -no-pie -o "$tmpdir/nopie" "$src" 2>/dev/null; then
	off=$(readelf -lW "$tmpdir/nopie" | awk '$1 == "LOAD" && / R E / { print $2, $3; exit }')
	va=$(insn_addrs "$tmpdir/nopie" outer | sed -n 5p)
	fo=$(printf '%x' $((0x$va - ${off#* } + ${off% *})))
	printf 'prog 100 1.0: 1 cycles:\n\t%s outer+0x0 (%s)\n\n' "$fo" "$tmpdir/nopie" >"$tmpdir/nopie.txt"
	want="prog;$(a2l_chain "$tmpdir/nopie" "$va" 1) 1"
	got=$("$TFLAME" collapse --inline --context "$tmpdir/nopie.txt")
	if [ "$got" = "$want" ]; then
		ok "non-PIE: the file offset perf prints is mapped to the address"
	else
		not_ok "non-PIE: file offset to address" "want $want" "got  $got"
	fi
fi

# A debug file in tflame's cache (XDG_CACHE_HOME) whose DWARF dwz moved
# in part into a multifile, as in Debian's dbgsym packages: the inline
# chains refer into the multifile (DW_FORM_GNU_ref_alt), which must be
# the file its .gnu_debugaltlink names, not the debug file again from the
# cache. Needs dwz (tools/install-deps installs it).
if command -v dwz >/dev/null 2>&1; then
	d=$tmpdir/dwz
	mkdir -p "$d/cache/tflame/debug"
	echo 'int tflame_second_program = 1;' >"$d/second.c"
	if cc -g -O2 -Wl,--build-id -o "$d/one" "$src" &&
		cc -g -O2 -Wl,--build-id -o "$d/two" "$src" "$d/second.c" &&
		objcopy --only-keep-debug "$d/one" "$d/one.debug" &&
		objcopy --only-keep-debug "$d/two" "$d/two.debug" &&
		dwz -m "$d/common.debug" -M "$d/common.debug" "$d/one.debug" "$d/two.debug" &&
		strip -g "$d/one"; then
		id=$(readelf -n "$d/one" | sed -n 's/.*Build ID: *//p')
		cp "$d/one.debug" "$d/cache/tflame/debug/$id.debug"
		va=$(insn_addrs "$prog" outer | sed -n 5p)
		printf 'prog 100 1.0: 1 cycles:\n\t%s outer+0x0 (%s)\n\n' "$va" "$d/one" >"$d/dwz.txt"
		# addr2line's chain on the program before dwz and strip.
		want="prog;$(a2l_chain "$prog" "$va" 1) 1"
		got=$(XDG_CACHE_HOME=$d/cache "$TFLAME" collapse --inline --context "$d/dwz.txt")
		if ! readelf -SW "$d/one.debug" | grep -q gnu_debugaltlink; then
			not_ok "dwz: the debug file has a .gnu_debugaltlink" "$(readelf -SW "$d/one.debug")"
		elif [ "$got" = "$want" ] && [ "${want#*;*;*;}" != "$want" ]; then
			ok "dwz multifile behind a cached debug file: the whole inline chain"
		else
			not_ok "dwz multifile behind a cached debug file" "want $want" "got  $got"
		fi
	else
		not_ok "dwz: could not build the programs and their multifile"
	fi
else
	not_ok "dwz is not installed (tools/install-deps installs it)"
fi

# A real recording, where perf can record.
if perf record -q -o "$tmpdir/probe.data" -g -- true >/dev/null 2>&1; then
	for mode in -g "--call-graph=dwarf"; do
		perf record -q -o "$tmpdir/rec.data" $mode -- "$prog" 3000000 >/dev/null 2>&1 &&
			perf script -i "$tmpdir/rec.data" >"$tmpdir/rec.txt" 2>/dev/null
		if ! [ -s "$tmpdir/rec.txt" ]; then
			not_ok "perf record $mode: a recording" "perf record or perf script failed"
			continue
		fi
		"$TFLAME" report --limit=3 "$tmpdir/rec.txt" >"$tmpdir/report" 2>"$tmpdir/err"
		if sed -n '/by self/,/^$/p' "$tmpdir/report" | sed -n 3p | grep -Eq " prog +inner$"; then
			ok "perf record $mode: inner, inlined, is the hottest function"
		else
			not_ok "perf record $mode: inner is the hottest function" "$(sed -n '/by self/,$p' "$tmpdir/report")"
		fi
		# Every address of the program in the recording: tflame's chain
		# is addr2line's.
		awk -v p="$prog" '$NF == "(" p ")" { print $1 }' "$tmpdir/rec.txt" | sort -u >"$tmpdir/addrs"
		bad=0 total=0
		while read -r a; do
			printf 'prog 1 1.0: 1 cycles:\n\t%s x+0x0 (%s)\n\n' "$a" "$prog" >"$tmpdir/one.txt"
			chain=$(a2l_chain "$prog" "$a" 1)
			# Where addr2line knows nothing, the script keeps perf's name.
			case $chain in '??' | '??:??:0') chain=x ;; esac
			want="prog;$chain 1"
			got=$("$TFLAME" collapse --inline --context "$tmpdir/one.txt")
			total=$((total + 1))
			[ "$got" = "$want" ] || { bad=$((bad + 1)); echo "# $a: want $want got $got"; }
		done <"$tmpdir/addrs"
		if [ $total -gt 0 ] && [ $bad = 0 ]; then
			ok "perf record $mode: all $total recorded addresses resolve as addr2line says"
		else
			not_ok "perf record $mode: recorded addresses as addr2line says" "$bad of $total differ"
		fi
	done
else
	echo "# perf cannot record here: the recording checks are skipped"
fi

finish
