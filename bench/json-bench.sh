#!/bin/sh
# Benchmark: load time and peak memory of the JSON importers on generated
# files of at least 300 MB, a Chrome trace (B/E events on 4 threads) and
# a speedscope file (two sampled profiles listed before shared.frames, the
# order py-spy writes and the one that makes the importer hold the most).
#
# usage: bench/json-bench.sh [BUILD_DIR] [MEGABYTES]
# Target (issue 5): peak RSS <= 2x the file size.
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=$here/out
build=${1:-$out/build}
build=$(cd "$build" && pwd)
mb=${2:-310}
mkdir -p "$out"
[ -x /usr/bin/time ] || { echo "GNU time (/usr/bin/time) is needed" >&2; exit 1; }

for kind in chrome speedscope; do
	input=$out/$kind-${mb}mb.json
	if [ ! -s "$input" ]; then
		echo "generating $input ..."
		python3 "$here/json-gen.py" "$kind" "$mb" "$input.tmp"
		mv "$input.tmp" "$input"
	fi
	# Warm the page cache: the load is what is measured, not the disk.
	cat "$input" >/dev/null
	/usr/bin/time -v "$build/tflame" report "$input" >"$out/$kind.report" 2>"$out/$kind.time"
	size=$(wc -c <"$input")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/$kind.time")
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/$kind.time")
	awk -v k="$kind" -v s="$size" -v r="$rss" -v w="$wall" 'BEGIN {
		printf "%-10s %7.1f MB  load+report %s  peak RSS %7.1f MB  (%.2fx the file)\n",
		       k, s / 1e6, w, r * 1024 / 1e6, r * 1024 / s
	}'
done
