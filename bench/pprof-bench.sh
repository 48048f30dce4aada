#!/bin/sh
# Benchmark: load a generated >= 100 MB pprof profile (raw protobuf, and
# gzipped) with `tflame report`, and print wall time, peak RSS, and peak
# RSS as a multiple of the protobuf's size (target: <= 2x).
#
# usage: bench/pprof-bench.sh [BUILD_DIR]
#   BUILD_DIR holds a built tflame (default: a release build made here in
#   bench/out/build). PPROF_MB sets the input size in MB (default 110).
set -e
. "$(dirname "$0")/lib.sh"

mb=${PPROF_MB:-110}
input=$out/pprof-$mb.pb
if [ ! -s "$input" ]; then
	echo "generating $input ..."
	python3 "$here/gen-pprof.py" "$mb" "$input.tmp"
	mv "$input.tmp" "$input"
fi
[ -s "$input.gz" ] || gzip -c "$input" >"$input.gz"
size=$(stat -c %s "$input")

for f in "$input" "$input.gz"; do
	/usr/bin/time -f '%e %M' -o "$out/time" "$tflame" report "$f" >"$out/report"
	read -r secs kb <"$out/time"
	echo "$(basename "$f"): $(stat -c %s "$f") bytes, $(sed -n 's/^samples *//p' "$out/report") samples"
	awk -v s="$secs" -v kb="$kb" -v size="$size" 'BEGIN {
		printf "  report: %.2f s, peak RSS %.0f MB = %.2fx the protobuf\n",
		       s, kb / 1024, kb * 1024 / size }'
done
