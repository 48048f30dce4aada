#!/bin/sh
# Benchmark: tflame export of a perf script of at least 100 MB to each
# format against tflame collapse of the same file, and the size of the SVG
# of a profile of a million distinct stacks.
#
# usage: bench/export-bench.sh [BUILD_DIR] [MEGABYTES]
# Targets (issue 17): each export <= 2x the time of collapse; the SVG of
# a million stacks < 50 MB (boxes under 0.1% of the width left out, as
# flamegraph.pl --minwidth does).
set -e
. "$(dirname "$0")/lib.sh"
mb=${2:-110}

input=$out/export-${mb}mb.perf.txt
if [ ! -s "$input" ]; then
	echo "generating $input ..."
	perl "$here/gen-perf.pl" "$top/tests/data/recorded/system-wide.txt" \
		$((mb * 1000 * 1000)) >"$input.tmp"
	mv "$input.tmp" "$input"
fi
# Warm the page cache: the work is measured, not the disk.
cat "$input" >/dev/null

# best_ms COMMAND...: the best wall time of three runs, in ms.
best_ms() {
	best=
	for _ in 1 2 3; do
		t0=$(now_ms)
		"$@" >/dev/null
		t=$(($(now_ms) - t0))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
	done
	echo "$best"
}

size=$(wc -c <"$input")
printf 'input: %s, %.1f MB\n' "$(basename "$input")" "$(echo "$size / 1000000" | bc -l)"
base=$(best_ms "$tflame" collapse "$input")
printf '%-22s %6d ms\n' "collapse" "$base"
for to in folded speedscope svg; do
	t=$(best_ms "$tflame" export --no-symbols --to=$to "$input" -o "$out/export.$to")
	awk -v n="export --to=$to" -v t="$t" -v b="$base" -v s="$(wc -c <"$out/export.$to")" \
		'BEGIN { printf "%-22s %6d ms  %.2fx collapse  (%.1f MB out)\n", n, t, t / b, s / 1e6 }'
done

# A million distinct stacks, shaped as profiles are: 10 to 60 frames
# deep, each frame drawn from a Zipf-like law over 50 names of its depth
# (so a few call paths are heavy and deep, the rest a long tail), a leaf
# of its own per stack, weights from a Pareto law.
stacks=$out/export-1m-stacks.folded
if [ ! -s "$stacks" ]; then
	echo "generating $stacks ..."
	python3 - "$stacks" <<'EOF'
import random, sys
random.seed(17)
with open(sys.argv[1], 'w') as out:
    for n in range(10 ** 6):
        depth = random.randint(10, 60)
        path = ['f%d_%d' % (d, min(49, int(random.paretovariate(1.5)) - 1))
                for d in range(depth)]
        path.append('leaf_%d' % n)
        out.write('%s %d\n' % (';'.join(path), 1 + int(random.paretovariate(1.2))))
EOF
fi
t0=$(now_ms)
"$tflame" export --to=svg "$stacks" -o "$out/1m.svg"
t=$(($(now_ms) - t0))
awk -v s="$(wc -c <"$out/1m.svg")" -v t="$t" -v b="$(grep -c '<g class' "$out/1m.svg")" \
	'BEGIN { printf "1 M stacks to SVG: %.1f MB, %d boxes, %d ms (target < 50 MB)\n", s / 1e6, b, t }'
t0=$(now_ms)
"$tflame" export --to=svg --minwidth=0.1 "$stacks" -o "$out/1m-px.svg"
t=$(($(now_ms) - t0))
awk -v s="$(wc -c <"$out/1m-px.svg")" -v t="$t" -v b="$(grep -c '<g class' "$out/1m-px.svg")" \
	'BEGIN { printf "  with --minwidth=0.1 (px, flamegraph.pl default): %.1f MB, %d boxes, %d ms\n", s / 1e6, b, t }'
