#!/bin/sh
# Benchmark (issue 39, memory bounded and measured): peak RSS and wall time
# of tflame report, collapse and dump on a system-wide perf script text
# replicated to about 100 MB and 1 GB, side by side with an older build
# (by default 5cc34c6, the last one before the huge-page heaps) and, at
# 100 MB, stackcollapse-perf.pl.
#
# usage: bench/memory.sh RECORDED [BUILD_DIR]
#
# RECORDED is a `perf script` text of a system-wide recording (plain, .gz
# or .zst), replicated by bench/sys-gen.pl; BUILD_DIR as for bench/run.sh.
# Everything it makes goes in a temporary directory, removed at the end:
# the inputs, and the older build, made in a git worktree of its own.
#
# Each command runs MEM_RUNS times, round-robin over the builds, page cache
# warm; the table gives the highest peak RSS (/usr/bin/time %M) and the
# lowest wall time of the runs, and for tflame the target: peak RSS at
# most 15% of the input + 64 MiB, and no more than the older build.
#
# Environment:
#   MEM_BASE         the commit to compare with (default 5cc34c6; "none" skips it)
#   MEM_RUNS         runs of each command (default 3)
#   MEM_SMALL_BYTES  the small input (default 100000000)
#   MEM_BIG_BYTES    the large input (default 1050000000; 0 skips it)
#   STACKCOLLAPSE    path of stackcollapse-perf.pl (default: on PATH or in
#                    FLAMEGRAPH_DIR; none skips it)
#   TMPDIR           where the temporary directory goes (needs about 1.3 GB)
set -e
recorded=${1:?usage: bench/memory.sh RECORDED [BUILD_DIR]}
shift
. "$(dirname "$0")/lib.sh"

base_rev=${MEM_BASE:-5cc34c6}
runs=${MEM_RUNS:-3}
small=${MEM_SMALL_BYTES:-100000000}
big=${MEM_BIG_BYTES:-1050000000}

skip() { echo "skipped: $*"; exit 0; }
[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed (tools/install-deps)"
command -v perl >/dev/null || skip "perl is not installed"
[ -r "$recorded" ] || { echo "bench/memory.sh: $recorded: cannot read" >&2; exit 2; }
unset DEBUGINFOD_URLS   # no network lookups for symbols

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tflame-memory.XXXXXX")
base_wt=
cleanup() {
	if [ -n "$base_wt" ]; then
		git -C "$top" worktree remove --force "$base_wt" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

need=$(((small + big) / 1024 + 300 * 1024))
avail=$(df -Pk "$tmp" | awk 'NR == 2 { print $4 }')
[ "$avail" -ge "$need" ] || skip "$tmp: $((avail / 1024)) MiB free, $((need / 1024)) needed"

sc=${STACKCOLLAPSE:-}
if [ -z "$sc" ]; then
	sc=$(command -v stackcollapse-perf.pl || true)
	[ -n "$sc" ] || [ ! -f "${FLAMEGRAPH_DIR:-/nonexistent}/stackcollapse-perf.pl" ] ||
		sc=$FLAMEGRAPH_DIR/stackcollapse-perf.pl
fi
[ "$sc" != none ] && [ -n "$sc" ] && [ -f "$sc" ] || sc=

# --- the inputs ---
case $recorded in
*.gz) gzip -dc "$recorded" >"$tmp/recorded.txt" ;;
*.zst) zstd -qdc "$recorded" >"$tmp/recorded.txt" ;;
*) cp "$recorded" "$tmp/recorded.txt" ;;
esac
sizes=$small
[ "$big" = 0 ] || sizes="$small $big"
for s in $sizes; do
	perl "$here/sys-gen.pl" "$tmp/recorded.txt" "$s" >"$tmp/in-$s.txt" 2>/dev/null
	echo "input: $(($(stat -c %s "$tmp/in-$s.txt") / 1000000)) MB," \
		"$(grep -c '^[^ 	#]' "$tmp/in-$s.txt") samples"
done

# --- the older build ---
builds="new"
if [ "$base_rev" != none ]; then
	base_wt=$tmp/base
	echo "building $base_rev ..."
	git -C "$top" worktree add --detach "$base_wt" "$base_rev" >/dev/null 2>&1
	(cd "$base_wt" && autoreconf -fi >/dev/null 2>&1 && mkdir build && cd build &&
		../configure -q >/dev/null && make -j"$(nproc)" tflame >/dev/null 2>&1)
	builds="new base"
fi
bin() { if [ "$1" = new ]; then echo "$tflame"; else echo "$base_wt/build/tflame"; fi; }

# --- the runs: "size build command..." -> "rss_kb seconds" lines in $res ---
res=$tmp/results
: >"$res"
measure() {
	_size=$1 _name=$2 _label=$3
	shift 3
	/usr/bin/time -f '%M %e' -o "$tmp/one" "$@" >/dev/null 2>"$tmp/err" || {
		echo "failed: $*" >&2
		cat "$tmp/err" >&2
		return 1
	}
	echo "$_size|$_name|$_label|$(tail -n 1 "$tmp/one")" >>"$res"
}
cmds="report|report --no-symbols|collapse|dump|dump --no-symbols"
for s in $sizes; do
	f=$tmp/in-$s.txt
	cat "$f" >/dev/null   # page cache warm
	r=0
	while [ "$r" -lt "$runs" ]; do
		r=$((r + 1))
		echo "$cmds" | tr '|' '\n' | while read -r c; do
			for b in $builds; do
				# shellcheck disable=SC2086
				measure "$s" "$b" "$c" "$(bin "$b")" $c "$f"
			done
		done
	done
	if [ "$s" = "$small" ] && [ -n "$sc" ]; then
		measure "$s" "stackcollapse-perf.pl" "collapse" perl "$sc" "$f"
	fi
done

# --- the table ---
echo
printf '| input | command | build | peak RSS | wall | target RSS | verdict |\n'
printf '| --- | --- | --- | ---: | ---: | ---: | --- |\n'
for s in $sizes; do
	mb=$(($(stat -c %s "$tmp/in-$s.txt") / 1000000))
	limit_kb=$(($(stat -c %s "$tmp/in-$s.txt") * 15 / 100 / 1024 + 65536))
	awk -F'|' -v s="$s" -v mb="$mb" -v limit="$limit_kb" '
	$1 == s {
		split($4, v, " ")
		k = $3 "|" $2
		if (!(k in rss)) { order[n++] = k; t[k] = v[2] }
		if (v[1] > rss[k]) rss[k] = v[1]
		if (v[2] < t[k]) t[k] = v[2]
	}
	END {
		for (i = 0; i < n; i++) {
			split(order[i], kb, "|")
			verdict = ""
			if (kb[2] == "new") {
				base = kb[1] "|base"
				ok = rss[order[i]] <= limit && (!(base in rss) || rss[order[i]] <= rss[base])
				verdict = ok ? "ok" : "MISSED"
				if (base in rss)
					verdict = verdict sprintf(" (base %.0f MiB)", rss[base] / 1024)
			}
			printf "| %d MB | %s | %s | %.0f MiB | %.2f s | %.0f MiB | %s |\n", mb, kb[1], kb[2],
				rss[order[i]] / 1024, t[order[i]], limit / 1024, verdict
		}
	}' "$res"
done
echo
echo "new: $tflame; base: ${base_rev}; runs: $runs (highest RSS, lowest time); MB = 10^6 bytes, MiB = 2^20"
