#!/bin/sh
# Benchmark (issue 6): symbolize >= 1 M frames of a recorded dwarf profile
# with tflame (libdw), against the addr2line route of stackcollapse-perf.pl
# --inline on the same perf script text. Targets: >= 100x faster; and
# (issue 11) report's symbolizing no slower than the batched addr2line.
#
# usage: bench/symbols.sh [BUILD_DIR]   (BUILD_DIR as for bench/run.sh)
#
# It generates a C program (bench/sym-gen.py: 600 functions, 180
# always_inline helpers, call chains 50 to 90 frames deep), builds it with
# -g -O2 in a temporary directory, records it with perf record --call-graph
# dwarf until perf script prints >= 1 M frame lines, and times on that text:
#   - tflame report, with and without --no-symbols (the difference is the
#     cost of symbolizing), and tflame collapse, --inline, --inline --context;
#   - of that cost, the lookups alone and the rebuilt stacks, as report
#     --verbose times them;
#   - the Perl script's route: one `addr2line -a PC -e MOD -i -f -s -C` per
#     distinct (address, module), timed on a random sample of the pairs and
#     extrapolated to all of them;
#   - the most favourable addr2line route: one addr2line per module, fed all
#     its addresses on stdin (real time);
#   - perf's own route: perf script with its inline resolution, and with
#     -F+srcline (each under a timeout);
# and checks, for random addresses, that tflame collapse --inline --context
# gives addr2line's chain.
#
# Environment: SYM_SECONDS (first recording length, default 12), SYM_FREQ
# (default 5000), SYM_MIN_FRAMES (default 1000000), SYM_A2L_SAMPLE (pairs
# timed with one addr2line each, default 300), SYM_CHECK (pairs checked,
# default 50), SYM_PERF_TIMEOUT (seconds for each perf route, default 600;
# 0 skips them), SYM_RUNS (runs of each tflame command, default 3),
# SYM_KEEP=1 keeps the temporary directory, SYM_BASE=PATH times another
# tflame binary's report (with and without --no-symbols) in the same
# round-robin, for a change measured side by side on one recording.
#
# Timings are best of three (SYM_RUNS) with a warm page cache; nothing else of ours
# runs meanwhile. The heavy preparation (compiling, recording) runs niced.
set -e
. "$(dirname "$0")/lib.sh"

seconds=${SYM_SECONDS:-12}
freq=${SYM_FREQ:-5000}
min_frames=${SYM_MIN_FRAMES:-1000000}
a2l_sample=${SYM_A2L_SAMPLE:-300}
check=${SYM_CHECK:-50}
perf_timeout=${SYM_PERF_TIMEOUT:-600}
runs=${SYM_RUNS:-3}

skip() { echo "skipped: $*"; exit 0; }
for tool in perf addr2line python3 gcc shuf timeout; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done
[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed"
unset DEBUGINFOD_URLS   # no network lookups from perf or addr2line

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tflame-sym.XXXXXX")
if [ "${SYM_KEEP:-}" = 1 ]; then
	echo "keeping $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
fi
perf record -q -o "$tmp/probe.data" -- true >/dev/null 2>&1 ||
	skip "perf record does not work here (perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?'))"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (b <= 0) print "-"; else if (a / b < 10) printf "%.2gx", a / b; else printf "%.0fx", a / b }'
}

# --- the workload ---
echo "building the workload (generated C, gcc -g -O2) ..."
python3 "$here/sym-gen.py" >"$tmp/sym-workload.c"
t=$(now)
(cd "$tmp" && nice gcc -g -O2 -o sym-workload sym-workload.c)
echo "  $(wc -l <"$tmp/sym-workload.c") lines of C, $(stat -c %s "$tmp/sym-workload") bytes of binary, built in $(since "$t") s"

frames=0
while :; do
	echo "recording: perf record --call-graph dwarf -F $freq, $seconds s ..."
	(cd "$tmp" && nice perf record -q -o perf.data --call-graph dwarf -F "$freq" \
		./sym-workload "$seconds" >/dev/null 2>"$tmp/record.err") ||
		skip "perf record --call-graph dwarf failed: $(tail -1 "$tmp/record.err")"
	t=$(now)
	perf script -i "$tmp/perf.data" --no-inline >"$tmp/perf.txt" 2>"$tmp/script.err"
	script_secs=$(since "$t")
	frames=$(grep -c '^	' "$tmp/perf.txt" || true)
	[ "$frames" -lt "$min_frames" ] || break
	[ "$seconds" -lt 200 ] || { echo "only $frames frame lines after $seconds s" >&2; exit 1; }
	echo "  $frames frame lines, fewer than $min_frames: recording longer"
	seconds=$((seconds * 2))
done
samples=$(grep -c '^$' "$tmp/perf.txt" || true)
size=$(stat -c %s "$tmp/perf.txt")
echo "input: perf script --no-inline: $samples samples, $frames frame lines, $((size / 1000000)) MB"
echo "  perf.data $(($(stat -c %s "$tmp/perf.data") / 1000000)) MB; perf script --no-inline took $script_secs s (unwinding, the same for every route)"

# Distinct (pc, module) of the frames the Perl script hands to addr2line:
# every module but [...], kernel. and perf-N.map ones. One line each:
# pc TAB module TAB the first frame line that has it.
awk -F'\t' '/^\t/ {
	line = $2
	n = split(line, w, " ")
	pc = w[1]
	mod = line
	sub(/^.* \(/, "", mod)
	sub(/\)$/, "", mod)
	if (mod ~ /perf-[0-9]+\.map|kernel\.|^\[.*\]$/ || pc ~ /^0*$/)
		next
	if (!((pc, mod) in seen)) {
		seen[pc, mod] = 1
		print pc "\t" mod "\t" line
	}
}' "$tmp/perf.txt" >"$tmp/pairs"
pairs=$(wc -l <"$tmp/pairs")
modules=$(cut -f2 "$tmp/pairs" | sort -u | wc -l)
echo "  $pairs distinct (address, module) pairs in $modules modules:"
cut -f2 "$tmp/pairs" | sort | uniq -c | sort -rn | sed 's/^/   /'

cat "$tmp/perf.txt" >/dev/null
# Fixed random sources, so reruns pick the same pairs of the same input.
yes 7 | head -c 1000000 >"$tmp/seed7"
yes 11 | head -c 1000000 >"$tmp/seed11"

# The five tflame commands, run round-robin $runs times so that a change of
# the machine's load hits them all alike; each one's best wall time and that
# run's peak RSS.
# The machine may be shared: say how loaded it was around the timings.
loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'; }
load_before=$(loadavg)
cmds="report --limit=5|report --no-symbols --limit=5|collapse|collapse --inline|collapse --inline --context"
base=${SYM_BASE:-}
[ -z "$base" ] || cmds="$cmds|base: report --limit=5|base: report --no-symbols --limit=5"
: >"$tmp/times"
echo "$cmds" | tr '|' '\n' >"$tmp/cmds"
for i in $(seq "$runs"); do
	k=0
	while IFS= read -r cmd; do
		k=$((k + 1))
		bin=$tflame
		case $cmd in "base: "*) bin=$base cmd=${cmd#base: } ;; esac
		# shellcheck disable=SC2086 # cmd is split into arguments on purpose
		/usr/bin/time -f "$k %e %M" -a -o "$tmp/times" "$bin" $cmd "$tmp/perf.txt" \
			</dev/null >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	done <"$tmp/cmds"
done
awk '!($1 in t) || $2 < t[$1] { t[$1] = $2; m[$1] = $3 }
     END { for (k in t) print k, t[k], m[k] }' "$tmp/times" | sort -n >"$tmp/best"
echo
echo "tflame (best of $runs, round-robin, $tflame):"
k=0
while IFS= read -r cmd; do
	k=$((k + 1))
	# shellcheck disable=SC2046 # two numbers
	set -- $(awk -v k="$k" '$1 == k { print $2, $3 }' "$tmp/best")
	printf '  %-38s %7.2f s  peak RSS %4d MiB\n' "$cmd" "$1" $(($2 / 1024))
	eval "t$k=$1 m$k=$2"
done <"$tmp/cmds"
report=$t1 report_rss=$m1 nosym=$t2 nosym_rss=$m2 collapse=$t3
cinline=$t4 cinline_rss=$m4 ccontext=$t5
symcost=$(awk -v a="$report" -v b="$nosym" 'BEGIN { printf "%.2f", a - b }')
if [ -n "$base" ]; then
	echo "  report's symbolizing with SYM_BASE ($base): $(awk -v a="$t6" -v b="$t7" 'BEGIN { printf "%.2f", a - b }') s"
fi
inlcost=$(awk -v a="$cinline" -v b="$collapse" 'BEGIN { printf "%.2f", a - b }')
ctxcost=$(awk -v a="$ccontext" -v b="$collapse" 'BEGIN { printf "%.2f", a - b }')
echo "  symbolizing in report: $symcost s; --inline in collapse: $inlcost s; --inline --context: $ctxcost s"
# The lookups alone, as report --verbose times them (the rest of the
# symbolizing cost is rebuilding the stacks with the inline frames).
lookups=
rebuild=
for i in $(seq "$runs"); do
	"$tflame" report --verbose --limit=5 "$tmp/perf.txt" >/dev/null 2>"$tmp/err" </dev/null
	l=$(sed -n 's/.* looked up in \([0-9]*\) ms.*/\1/p' "$tmp/err")
	r=$(sed -n 's/.* stacks rebuilt as [0-9]* in \([0-9]*\) ms.*/\1/p' "$tmp/err")
	[ -n "$l" ] || { echo "report --verbose gave no timing: $(cat "$tmp/err")" >&2; exit 1; }
	if [ -z "$lookups" ] || [ "$l" -lt "$lookups" ]; then lookups=$l; fi
	if [ -z "$rebuild" ] || [ "$r" -lt "$rebuild" ]; then rebuild=$r; fi
done
lookups=$(awk -v ms="$lookups" 'BEGIN { printf "%.3f", ms / 1000 }')
rebuild=$(awk -v ms="$rebuild" 'BEGIN { printf "%.3f", ms / 1000 }')
echo "  of which (report --verbose, best of $runs): lookups $lookups s, stacks rebuilt $rebuild s"
# A difference of two noisy times can come out near zero; never divide by less
# than 10 ms.
floor() { awk -v a="$1" 'BEGIN { printf "%.2f", a < 0.01 ? 0.01 : a }'; }
symcost=$(floor "$symcost")
inlcost=$(floor "$inlcost")
ctxcost=$(floor "$ctxcost")

# --- the addr2line routes ---
echo
echo "addr2line (binutils $(addr2line --version | head -1 | awk '{ print $NF }')):"
n=$a2l_sample
[ "$n" -le "$pairs" ] || n=$pairs
shuf -n "$n" --random-source="$tmp/seed7" "$tmp/pairs" >"$tmp/a2l-sample"
sample_secs=
for pass in 1 2; do   # the faster of two passes over the same sample
	t=$(now)
	while IFS='	' read -r pc mod line; do
		addr2line -a "$pc" -e "$mod" -i -f -s -C >/dev/null
	done <"$tmp/a2l-sample"
	s=$(since "$t")
	if [ -z "$sample_secs" ] || awk -v a="$s" -v b="$sample_secs" 'BEGIN { exit !(a < b) }'; then
		sample_secs=$s
	fi
done
per_call=$(awk -v t="$sample_secs" -v n="$n" 'BEGIN { printf "%.2f", t / n * 1000 }')
a2l_all=$(awk -v t="$sample_secs" -v n="$n" -v p="$pairs" 'BEGIN { printf "%.0f", t / n * p }')
echo "  one process per pair: $n random pairs in $sample_secs s (faster of 2 passes), $per_call ms a call"
echo "    extrapolated to all $pairs pairs: $a2l_all s"

b=
for i in 1 2 3; do
	t=$(now)
	cut -f2 "$tmp/pairs" | sort -u | while IFS= read -r mod; do
		awk -F'\t' -v m="$mod" '$2 == m { print $1 }' "$tmp/pairs" |
			addr2line -a -e "$mod" -i -f -s -C >/dev/null
	done
	s=$(since "$t")
	if [ -z "$b" ] || awk -v a="$s" -v b="$b" 'BEGIN { exit !(a < b) }'; then b=$s; fi
done
a2l_batch=$b
echo "  one process per module, all its addresses on stdin: $a2l_batch s (best of 3, real)"

# --- perf's own route ---
perf_inline=
perf_srcline=
if [ "$perf_timeout" -gt 0 ]; then
	echo
	echo "perf's own route (timeout $perf_timeout s each, one run; minus perf script --no-inline, run again just before):"
	run_perf() {
		t=$(now)
		if timeout "$perf_timeout" perf script -i "$tmp/perf.data" "$@" >/dev/null 2>&1; then
			since "$t"
		else
			echo "> $perf_timeout"
		fi
	}
	script_secs=$(run_perf --no-inline)
	echo "  perf script --no-inline: $script_secs s"
	perf_inline=$(run_perf --inline)
	echo "  perf script --inline: $perf_inline s"
	perf_srcline=$(run_perf --no-inline -F+srcline)
	echo "  perf script --no-inline -F+srcline: $perf_srcline s"
fi

# --- correctness: tflame collapse --inline --context against addr2line ---
echo
n=$check
[ "$n" -le "$pairs" ] || n=$pairs
shuf -n "$n" --random-source="$tmp/seed11" "$tmp/pairs" >"$tmp/check"
awk -F'\t' '{ printf "c%d %d %d.000000: 1 cycles:\n\t%s\n\n", NR, NR, NR, $3 }' \
	"$tmp/check" >"$tmp/check.txt"
"$tflame" collapse --inline --context "$tmp/check.txt" 2>/dev/null |
	sed 's/^c\([0-9]*\);\(.*\) 1$/\1	\2/' >"$tmp/check.tflame"
i=0
: >"$tmp/check.a2l"
while IFS='	' read -r pc mod line; do
	i=$((i + 1))
	addr2line -a "$pc" -e "$mod" -i -f -s -C | awk -v i="$i" '
		NR == 1 { next }
		NR % 2 == 0 { fn = $0; next }
		{ sub(/ \(discriminator [0-9]+\)$/, ""); chain = fn ":" $0 (chain == "" ? "" : ";" chain) }
		END { print i "\t" chain }' >>"$tmp/check.a2l"
done <"$tmp/check"
# k TAB tflame's chain TAB addr2line's, for each checked pair
awk -F'\t' 'NR == FNR { tf[$1] = $2; next } { print $1 "\t" tf[$1] "\t" $2 }' \
	"$tmp/check.tflame" "$tmp/check.a2l" >"$tmp/check.both"
agree=$(awk -F'\t' '$2 == $3' "$tmp/check.both" | wc -l)
inlined=$(awk -F'\t' '$2 ~ /;/' "$tmp/check.a2l" | wc -l)
echo "correctness: tflame collapse --inline --context agrees with addr2line on $agree of $n random pairs ($inlined of them with an inline chain)"
awk -F'\t' '$2 != $3' "$tmp/check.both" | head -5 |
	while IFS='	' read -r k tf a2; do
		echo "  differs: $(sed -n "${k}p" "$tmp/check" | cut -f3)"
		echo "    tflame:    $tf"
		echo "    addr2line: $a2"
	done

# --- summary ---
echo
echo "summary: $frames frames, $samples samples, $pairs distinct (address, module) pairs"
printf '%-52s %10s %9s\n' route seconds speedup
row() { printf '%-52s %10s %9s\n' "$1" "$2" "$3"; }
row "tflame report: symbolizing (report - --no-symbols)" "$symcost" "1x"
row "tflame collapse --inline (- plain collapse)" "$inlcost" ""
row "tflame collapse --inline --context (- collapse)" "$ctxcost" ""
row "addr2line per pair (Perl script), extrapolated" "$a2l_all" "$(ratio "$a2l_all" "$symcost")"
row "  against the whole collapse --inline run" "" "$(ratio "$a2l_all" "$cinline")"
row "addr2line per module, stdin (lower bound), real" "$a2l_batch" "$(ratio "$a2l_batch" "$symcost")"
row "  against tflame's lookups alone ($lookups s)" "" "$(ratio "$a2l_batch" "$lookups")"
row "  against the whole collapse --inline run" "" "$(ratio "$a2l_batch" "$cinline")"
if [ -n "$perf_inline" ]; then
	d() { case $1 in ">"*) echo "$1";; *) awk -v a="$1" -v b="$script_secs" 'BEGIN { printf "%.2f", a - b }';; esac; }
	r() { case $1 in ">"*) echo "> $(ratio "${1#> }" "$symcost")";; *) ratio "$1" "$symcost";; esac; }
	row "perf script --inline (- --no-inline)" "$(d "$perf_inline")" "$(r "$(d "$perf_inline")")"
	row "perf script -F+srcline (- --no-inline)" "$(d "$perf_srcline")" "$(r "$(d "$perf_srcline")")"
fi
echo "(speedup: the route's seconds over tflame report's symbolizing cost; whole"
echo " runs: report $report s / $((report_rss / 1024)) MiB, --no-symbols $nosym s / $((nosym_rss / 1024)) MiB,"
echo " collapse --inline $cinline s / $((cinline_rss / 1024)) MiB)"
verdict=$(awk -v a="$a2l_all" -v b="$symcost" 'BEGIN { print (a / b >= 100) ? "met" : "NOT MET" }')
echo "target >= 100x against the per-pair addr2line route: $verdict"
echo "(against the whole tflame report run with symbols: $(ratio "$a2l_all" "$report"))"
verdict=$(awk -v a="$a2l_batch" -v b="$symcost" 'BEGIN { print (b <= a) ? "met" : "NOT MET" }')
echo "target: report's symbolizing ($symcost s) no slower than addr2line per module on stdin ($a2l_batch s): $verdict"
echo "load average: $load_before before the timings, $(loadavg) after"
