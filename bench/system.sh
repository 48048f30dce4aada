#!/bin/sh
# Benchmark (issue 11, "the first screen in a second again"): tflame on a
# system-wide profile of this machine, against stackcollapse-perf.pl and
# speedscope, all measured in one run.
#
# usage: bench/system.sh [BUILD_DIR]   (BUILD_DIR as for bench/run.sh)
#
# 1. Records this machine with `perf record -a -g -F 999` for 10 s while a
#    mixed workload runs (xz, python3 json, a shell loop of ls/grep/bash,
#    gcc -O2 on one of our .c files, perl hashes: many processes, threads
#    and libraries, kernel frames), and prints it with `perf script`. The
#    recording stays in bench/out/system/ and later runs reuse it.
# 2. Replicates that text (bench/sys-gen.pl: frame lines as recorded, times
#    shifted, thread ids varied to about 450 threads) to >= 100 MB and
#    >= 1.05 GB, kept in bench/out/.
# 3. Times on both, round-robin, best of SYS_RUNS, page cache warm:
#    - the explorer's first screen, default and --no-symbols (tmux, 200x60,
#      as bench/ui.sh), and its peak RSS (/usr/bin/time inside tmux; it
#      quits once the status line no longer shows "symbols NN%");
#    - tflame report, default and --no-symbols (time, peak RSS);
#    - stackcollapse-perf.pl FILE > /dev/null, where there is one;
#    - speedscope, from opening the profile to its first drawn flame graph,
#      in headless Chromium (bench/speedscope-time.js).
# 4. Prints one table: every figure, its ratio and target, ok or MISSED.
#
# Targets (issue 11), on each size: first screen default <= 1.3x
# --no-symbols; >= 25x faster than stackcollapse-perf.pl alone; >= 10x
# faster than speedscope; report default <= 1.5x --no-symbols. At >= 1 GB:
# first screen <= 1.5 s, explorer peak RSS <= 15% of the input + 64 MiB.
#
# Environment:
#   SYS_RUNS            rounds, best of (default 3)
#   SYS_RECORD=1        record again even if bench/out/system/ has a recording
#   SYS_SECONDS         recording length (default 10)
#   SYS_SMALL_BYTES     the small input (default 100000000)
#   SYS_BIG_BYTES       the large input (default 1050000000)
#   SYS_THREADS         about how many threads the inputs have (default 450)
#   SYS_TIMEOUT         seconds before a run counts as failed (default 300)
#   SYS_SYMBOLS_TIMEOUT seconds the explorer gets to finish symbols (default 120)
#   STACKCOLLAPSE       path of stackcollapse-perf.pl (default: on PATH or
#                       in FLAMEGRAPH_DIR)
#   SYS_SPEEDSCOPE=0    skip speedscope
#   SYS_INSTALL=0       install nothing (by default, as root, it installs
#                       Debian's chromium and, into bench/out/npm, speedscope
#                       and playwright-core from npm when they are missing)
set -e
. "$(dirname "$0")/lib.sh"

runs=${SYS_RUNS:-3}
seconds=${SYS_SECONDS:-10}
small=${SYS_SMALL_BYTES:-100000000}
big=${SYS_BIG_BYTES:-1050000000}
threads=${SYS_THREADS:-450}
limit=${SYS_TIMEOUT:-300}
sym_limit=${SYS_SYMBOLS_TIMEOUT:-120}

skip() { echo "skipped: $*"; exit 0; }
for tool in tmux perl awk; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done
[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed"
unset DEBUGINFOD_URLS   # no network lookups from perf or tflame
bench_start=$(now_ms)

# --- the others: stackcollapse-perf.pl and speedscope ---
# Installed before the recording: installing Chromium with apt can upgrade
# packages whose binaries the workload runs (perl did, once), and the
# recorded addresses would then no longer match the files on disk.
sc=${STACKCOLLAPSE:-}
if [ -z "$sc" ]; then
	sc=$(command -v stackcollapse-perf.pl || true)
	[ -n "$sc" ] || [ ! -f "${FLAMEGRAPH_DIR:-/nonexistent}/stackcollapse-perf.pl" ] ||
		sc=$FLAMEGRAPH_DIR/stackcollapse-perf.pl
fi
if [ -n "$sc" ] && [ -f "$sc" ]; then
	sc_why=
	echo "stackcollapse-perf.pl: $sc"
else
	sc=
	sc_why="none: Debian 12 and npm do not package it; set STACKCOLLAPSE"
	echo "stackcollapse-perf.pl: skipped ($sc_why)"
fi

npm_dir=$out/npm
ss_release=$npm_dir/node_modules/speedscope/dist/release
ss_why=
chromium=${CHROMIUM:-/usr/bin/chromium}
install_ok() { [ "${SYS_INSTALL:-1}" != 0 ] && [ "$(id -u)" = 0 ]; }
if [ "${SYS_SPEEDSCOPE:-1}" = 0 ]; then
	ss_why="SYS_SPEEDSCOPE=0"
fi
if [ -z "$ss_why" ] && [ ! -x "$chromium" ]; then
	if install_ok && command -v apt-get >/dev/null; then
		echo "installing Debian's chromium ..."
		{ apt-get install -y -q chromium || { apt-get update -q && apt-get install -y -q chromium; }; } \
			>"$out/apt.log" 2>&1 || true
	fi
	[ -x "$chromium" ] || ss_why="no Chromium at $chromium (apt-get install chromium, as root)"
fi
if [ -z "$ss_why" ] && ! command -v node >/dev/null; then
	ss_why="node is not installed"
fi
if [ -z "$ss_why" ] && { [ ! -f "$ss_release/index.html" ] || [ ! -d "$npm_dir/node_modules/playwright-core" ]; }; then
	if [ "${SYS_INSTALL:-1}" != 0 ] && command -v npm >/dev/null; then
		echo "installing speedscope and playwright-core from npm into $npm_dir ..."
		mkdir -p "$npm_dir"
		(cd "$npm_dir" && npm install --prefix . --no-audit --no-fund speedscope playwright-core) \
			>"$out/npm.log" 2>&1 || true
	fi
	[ -f "$ss_release/index.html" ] && [ -d "$npm_dir/node_modules/playwright-core" ] ||
		ss_why="speedscope or playwright-core is not installed (npm install into $npm_dir)"
fi
speedscope_time() {   # FILE: prints ms, or "error: why"
	NODE_PATH=$npm_dir/node_modules CHROMIUM=$chromium \
		node "$here/speedscope-time.js" "$ss_release" "$1" "$limit" 2>>"$out/speedscope.err" ||
		true
}
if [ -z "$ss_why" ]; then
	probe=$(speedscope_time "$top/data/sample.perf.txt")
	case $probe in
	[0-9]*)
		ss_version=$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$ss_release/../../package.json" | head -1)
		echo "speedscope $ss_version in $("$chromium" --version 2>/dev/null | head -1) (headless, playwright-core); the bundled sample in $probe ms"
		;;
	*) ss_why="speedscope does not run here: ${probe#error: }";;
	esac
fi
[ -z "$ss_why" ] || echo "speedscope: skipped ($ss_why)"

# --- 1. the recording ---
rec=$out/system
mkdir -p "$rec"
can_record() {
	command -v perf >/dev/null &&
		perf record -q -a -g -o "$rec/probe.data" -- true >/dev/null 2>&1
}
if [ ! -s "$rec/perf.txt" ] || [ "${SYS_RECORD:-}" = 1 ]; then
	if ! can_record; then
		rm -f "$rec/probe.data"
		skip "perf record -a -g does not work here (perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?')), and there is no recording in $rec"
	fi
	rm -f "$rec/probe.data"
	for tool in xz python3 gcc bash grep timeout; do
		command -v "$tool" >/dev/null || skip "$tool is needed for the workload"
	done
	work=$rec/work
	rm -rf "$work"
	mkdir -p "$work"
	head -c 32000000 /dev/urandom >"$work/random"
	cflags="-O2 -std=c11 -I$top/include"
	[ -f "$build/config.h" ] && cflags="$cflags -I$build"
	echo "recording this machine: perf record -a -g -F 999, $seconds s, with a mixed workload ..."
	# Each worker loops until its timeout, a little longer than the
	# recording. (Their $ expand in the inner sh, python3 or perl.)
	t=$((seconds + 2))
	timeout "$t" sh -c 'while :; do xz -T2 -6 -c "$1" >/dev/null; done' sh "$work/random" &
	timeout "$t" python3 -c '
import json, random, threading
def work(seed):
    r = random.Random(seed)
    while True:
        doc = [{"id": i, "name": "n%d" % r.randrange(10**6),
                "tags": [r.random() for _ in range(8)],
                "child": {"a": [i] * 5, "b": str(r.random())}} for i in range(2000)]
        json.loads(json.dumps(doc, sort_keys=True))
for s in range(3):
    threading.Thread(target=work, args=(s,), daemon=True).start()
threading.Event().wait()' &
	timeout "$t" sh -c 'while :; do
		ls -laR /usr/include >/dev/null 2>&1
		grep -rc "static" "$1" >/dev/null 2>&1
		bash -c "i=0; while [ \$i -lt 20000 ]; do i=\$((i + 1)); done"
	done' sh "$top/src" &
	timeout "$t" sh -c 'while :; do gcc $1 -c "$2" -o "$3" 2>/dev/null || sleep 0.1; done' \
		sh "$cflags" "$top/src/core/search.c" "$work/search.o" &
	timeout "$t" perl -e '
		my %h;
		while (1) {
			$h{"key" . ($_ * 7919 % 300007)} .= "x" for 1 .. 300000;
			my $n = 0;
			$n += length($h{$_}) for keys %h;
			%h = () if $n > 5e6;
		}' &
	sleep 1
	perf record -q -a -g -F 999 -o "$rec/perf.data" -- sleep "$seconds" 2>"$rec/record.err" ||
		{ cat "$rec/record.err" >&2; exit 1; }
	wait
	echo "perf script ..."
	perf script -i "$rec/perf.data" >"$rec/perf.txt.tmp" 2>"$rec/script.err"
	mv "$rec/perf.txt.tmp" "$rec/perf.txt"
	rm -rf "$work"
fi
recorded=$rec/perf.txt
rsize=$(stat -c %s "$recorded")
echo "recording: $recorded, $(grep -c '^[^ 	]' "$recorded") samples, $((rsize / 1000000)) MB"
# The modules that have samples, by share of the frame lines.
awk '/^\t/ { m = $0; sub(/ \(deleted\)\)$/, ")", m); sub(/^.* \(/, "", m); sub(/\)$/, "", m)
		n[m]++; all++ }
	END { for (m in n) printf "%7.1f%%  %s\n", 100 * n[m] / all, m }' "$recorded" |
	sort -rn | head -12 | sed 's/^/  /'

# --- 2. the inputs ---
gen() {
	f=$out/system-$1.txt
	if [ ! -s "$f" ] || [ -n "$(find "$recorded" -newer "$f")" ]; then
		echo "generating $f ..." >&2
		perl "$here/sys-gen.pl" "$recorded" "$1" "$threads" >"$f.tmp"
		mv "$f.tmp" "$f"
	fi
	echo "$f"
}
small_f=$(gen "$small")
big_f=$(gen "$big")
for f in "$small_f" "$big_f"; do
	echo "input: $f, $(($(stat -c %s "$f") / 1000000)) MB, $(grep -c '^[^ 	]' "$f") samples, $("$tflame" report --no-symbols "$f" | sed -n 's/^threads (\([0-9]*\)[ )].*/\1/p') threads"
done

# --- 3. the measurements ---
sock=tflame-system-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true' EXIT
res=$out/system-results
: >"$res"

# explorer NAME FILE [OPTION]: one run of the explorer under /usr/bin/time
# in tmux at 200x60; appends "NAME first_ms symbols_done_ms rss_kb" to $res.
explorer() {
	_name=$1 _file=$2
	shift 2
	rm -f "$out/system-rss"
	tmux -L "$sock" kill-server 2>/dev/null || true
	_ms=$(first_screen "$sock" 200 60 "$limit" \
		"env TERM=xterm-256color LANG=C.UTF-8 TZ=UTC /usr/bin/time -f %M -o '$out/system-rss' '$tflame' $* '$_file'") ||
		{ echo "$_name: no first screen after $limit s" >&2; tmux -L "$sock" kill-server; return 0; }
	# Symbols go on after the first screen: the status line says "symbols
	# NN%" until they are done.
	_t0=$(now_ms)
	while tmux -L "$sock" capture-pane -p | tail -n 1 | grep -Eq 'symbols[: ]*[0-9.]+ ?%'; do
		[ $(($(now_ms) - _t0)) -lt $((sym_limit * 1000)) ] || { echo "$_name: symbols not done after $sym_limit s" >&2; break; }
		sleep 0.05
	done
	_sym=$((_ms + $(now_ms) - _t0))
	sleep 1
	tmux -L "$sock" send-keys q
	_t0=$(now_ms)
	until [ -s "$out/system-rss" ]; do
		[ $(($(now_ms) - _t0)) -lt 30000 ] || { echo "$_name: did not quit" >&2; break; }
		sleep 0.05
	done
	tmux -L "$sock" kill-server 2>/dev/null || true
	echo "$_name $_ms $_sym $(tail -n 1 "$out/system-rss" 2>/dev/null || echo 0)" >>"$res"
}
# timed NAME COMMAND...: appends "NAME ms rss_kb" (ms -1 if it failed).
timed() {   # NAME CMD...: wall ms from the clock (time's %e counts in 10 ms), peak RSS
	_name=$1
	shift
	_t0=$(now_ms)
	if timeout "$limit" /usr/bin/time -f '%M' -o "$out/system-time" "$@" >/dev/null 2>"$out/system-err"; then
		_t1=$(now_ms)
		awk -v n="$_name" -v ms=$((_t1 - _t0)) '{ printf "%s %d %d\n", n, ms, $1 }' "$out/system-time" >>"$res"
	else
		echo "$_name: failed or over $limit s: $(tail -n 1 "$out/system-err")" >&2
		echo "$_name -1 0" >>"$res"
	fi
}

ss_dead=
for round in $(seq "$runs"); do
	echo "round $round of $runs ..."
	for size in small big; do
		eval "f=\$${size}_f"
		cat "$f" >/dev/null   # warm the page cache
		explorer "$size.ui" "$f"
		explorer "$size.ui-nosym" "$f" --no-symbols
		timed "$size.report" "$tflame" report "$f"
		timed "$size.report-nosym" "$tflame" report --no-symbols "$f"
		[ -z "$sc" ] || timed "$size.stackcollapse" perl "$sc" "$f"
		if [ -z "$ss_why" ]; then
			case " $ss_dead " in
			*" $size "*) ;;
			*)
				r=$(speedscope_time "$f")
				case $r in
				[0-9]*) echo "$size.speedscope $r" >>"$res";;
				*)
					echo "speedscope on $f: $r" >&2
					echo "$size.speedscope -1 ${r#error: }" >>"$res"
					ss_dead="$ss_dead $size"   # no use trying again
					;;
				esac
				;;
			esac
		fi
	done
done

# --- 4. the table ---
# best NAME [FIELD]: the smallest non-negative ms of NAME's runs (FIELD 2),
# with the other fields of that run; empty if none succeeded.
best() {
	awk -v n="$1" '$1 == n && $2 >= 0 && (b == "" || $2 < b) { b = $2; l = $0 } END { print l }' "$res"
}
field() { echo "$1" | awk -v k="$2" '{ print $k }'; }
secs() { [ -n "$1" ] && awk -v ms="$1" 'BEGIN { printf(ms < 1000 ? "%.3f s" : "%.2f s", ms / 1000) }' || echo "-"; }
mib() { [ -n "$1" ] && echo "$(($1 / 1024)) MiB" || echo "-"; }
row() { printf '%-44s %12s %10s %10s  %s\n' "$1" "$2" "$3" "$4" "$5"; }
verdict() {   # VALUE OP LIMIT
	[ -n "$1" ] || { echo "-"; return; }
	awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN {
		ok = op == "<=" ? v <= l : v >= l; print ok ? "ok" : "MISSED" }'
}
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo
echo "issue 11 on a system-wide profile of this machine: best of $runs, round-robin"
echo "($tflame, $("$tflame" --version | head -n 1))"
row "" figure ratio target verdict
for size in small big; do
	eval "f=\$${size}_f"
	bytes=$(stat -c %s "$f")
	label="$((bytes / 1000000)) MB"
	ui=$(best "$size.ui")
	uin=$(best "$size.ui-nosym")
	ui_ms=$(field "$ui" 2)
	uin_ms=$(field "$uin" 2)
	row "$label: first screen, default" "$(secs "$ui_ms")" "" \
		"$([ "$size" = big ] && echo '<= 1.5 s')" \
		"$([ "$size" = big ] && verdict "$ui_ms" '<=' 1500)"
	row "$label: first screen, --no-symbols" "$(secs "$uin_ms")"
	r=$(ratio "$ui_ms" "$uin_ms")
	row "$label: first screen, default / --no-symbols" "" "${r:+${r}x}" "<= 1.3x" "$(verdict "$r" '<=' 1.3)"
	row "$label: symbols done, default" "$(secs "$(field "$ui" 3)")" "" "" "(the status line's symbols NN% gone)"
	rss=$(field "$ui" 4)
	budget=$(awk -v s="$bytes" 'BEGIN { printf "%.0f", (s * 0.15 + 64 * 1048576) / 1024 }')
	if [ "$size" = big ]; then
		row "$label: explorer peak RSS, default" "$(mib "$rss")" "" "<= $((budget / 1024)) MiB" "$(verdict "$rss" '<=' "$budget")"
	else
		row "$label: explorer peak RSS, default" "$(mib "$rss")" "" "" "(15% + 64 MiB would be $((budget / 1024)) MiB)"
	fi
	row "$label: explorer peak RSS, --no-symbols" "$(mib "$(field "$uin" 4)")"
	if [ -n "$sc" ]; then
		s=$(field "$(best "$size.stackcollapse")" 2)
		r=$(ratio "$s" "$ui_ms")
		row "$label: stackcollapse-perf.pl alone" "$(secs "$s")" "${r:+${r}x}" ">= 25x" "$(verdict "$r" '>=' 25)"
	else
		row "$label: stackcollapse-perf.pl alone" "skipped" "" ">= 25x" "($sc_why)"
	fi
	if [ -n "$ss_why" ]; then
		row "$label: speedscope, first flame graph" "skipped" "" ">= 10x" "($ss_why)"
	else
		s=$(field "$(best "$size.speedscope")" 2)
		if [ -n "$s" ]; then
			r=$(ratio "$s" "$ui_ms")
			row "$label: speedscope, first flame graph" "$(secs "$s")" "${r:+${r}x}" ">= 10x" "$(verdict "$r" '>=' 10)"
		else
			row "$label: speedscope, first flame graph" "failed" "" ">= 10x" \
				"($(awk -v n="$size.speedscope" '$1 == n { $1 = $2 = ""; sub(/^ +/, ""); print; exit }' "$res"))"
		fi
	fi
	rep=$(best "$size.report")
	repn=$(best "$size.report-nosym")
	row "$label: report, default" "$(secs "$(field "$rep" 2)")" "" "" "peak RSS $(mib "$(field "$rep" 3)")"
	row "$label: report --no-symbols" "$(secs "$(field "$repn" 2)")" "" "" "peak RSS $(mib "$(field "$repn" 3)")"
	r=$(ratio "$(field "$rep" 2)" "$(field "$repn" 2)")
	row "$label: report, default / --no-symbols" "" "${r:+${r}x}" "<= 1.5x" "$(verdict "$r" '<=' 1.5)"
done
echo "(ratios against the explorer's first screen with default settings; whole bench $(( ($(now_ms) - bench_start) / 1000 )) s)"
