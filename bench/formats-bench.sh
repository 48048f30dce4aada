#!/bin/sh
# Benchmark: load a generated >= 100 MB file of each format of issue 18
# with `tflame report`, and print wall time, CPU time, peak RSS and both
# as rates and multiples of the file's size. Targets: >= 100 MB/s
# (JFR: >= 50 MB/s) and peak RSS <= 2x the file.
#
# usage: bench/formats-bench.sh [BUILD_DIR] [FORMAT...]
#   BUILD_DIR holds a built tflame (default: a release build made here in
#   bench/out/build). FORMATS_MB sets the input size in MB (default 110).
#   One section per format; with no FORMAT, all of them.
set -e
. "$(dirname "$0")/lib.sh"
[ $# -gt 0 ] && shift
formats=${*:-jfr gecko gecko-processed safari instruments pmcstat papyrus stackprof \
	heapprofile ghc v8log}
mb=${FORMATS_MB:-110}

# measure FILE: load it once and print the figures.
measure() {
	size=$(stat -c %s "$1")
	/usr/bin/time -f '%e %U %S %M' -o "$out/time" "$tflame" report "$1" >"$out/report"
	read -r secs user sys kb <"$out/time"
	echo "$(basename "$1"): $size bytes, $(sed -n 's/^samples *//p' "$out/report") samples"
	awk -v s="$secs" -v u="$user" -v y="$sys" -v kb="$kb" -v size="$size" 'BEGIN {
		printf "  report: %.2f s wall (%.0f MB/s), %.2f s CPU (%.0f MB/s), peak RSS %.0f MB = %.2fx the file\n",
		       s, size / 1e6 / s, u + y, size / 1e6 / (u + y), kb / 1024, kb * 1024 / size }'
}

for fmt in $formats; do
	case $fmt in
	jfr)
		# Java Flight Recorder: chunks of 16 MB of events, each with its
		# metadata and constant pools (20,000 stack traces), as a long
		# recording has them.
		input=$out/jfr-$mb.jfr
		if [ ! -s "$input" ]; then
			echo "generating $input ..."
			python3 "$here/gen-jfr.py" --mb "$mb" "$input.tmp"
			mv "$input.tmp" "$input"
		fi
		measure "$input" ;;
	gecko|gecko-processed|safari)
		# Gecko: the raw form (Firefox, perf script report gecko), 12
		# threads in two processes; the processed form as Python's
		# sampler writes it, strings after the threads, so every thread
		# is held to the end; a Safari recording of 40-frame samples.
		input=$out/$fmt-$mb.json
		if [ ! -s "$input" ]; then
			echo "generating $input ..."
			python3 "$here/gecko-gen.py" "$fmt" "$mb" "$input.tmp"
			mv "$input.tmp" "$input"
		fi
		measure "$input" ;;
	instruments|pmcstat|papyrus)
		# bench/formats-gen.py: an Instruments deep copy 40 levels deep, a
		# pmcstat call graph of two events, a papyrus stack log on 8
		# stacks; every call site a random function of a few thousand, so
		# most stacks are new.
		input=$out/$fmt-$mb.txt
		if [ ! -s "$input" ]; then
			echo "generating $input ..."
			python3 "$here/formats-gen.py" "$fmt" "$mb" "$input.tmp"
			mv "$input.tmp" "$input"
		fi
		measure "$input" ;;
	stackprof|heapprofile|ghc|v8log)
		# stackprof (wall mode), V8 heap profile, GHC -pj and V8 tick
		# log: a synthetic call tree of a few thousand functions, laid
		# out as each tool writes its files (jsonfmt-gen.py).
		input=$out/$fmt-$mb.json
		if [ ! -s "$input" ]; then
			echo "generating $input ..."
			python3 "$here/jsonfmt-gen.py" "$fmt" "$mb" "$input.tmp"
			mv "$input.tmp" "$input"
		fi
		measure "$input" ;;
	*)
		echo "formats-bench: unknown format $fmt" >&2
		exit 2 ;;
	esac
done
