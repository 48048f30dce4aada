#!/bin/sh
# Benchmark: opening a comparison of two big perf script files, against
# opening the newer one alone, and what a keystroke costs in diff mode.
#
# usage: bench/diff-bench.sh [BUILD_DIR]   (as bench/run.sh)
#
# Generates BASE (100 MB) and NEW (110 MB) from the bundled sample with
# gen-perf.pl (so NEW has passes BASE lacks), then times the first screen
# (as bench/ui.sh: tmux, the tab bar and a row of boxes) of `tflame NEW`
# and `tflame BASE NEW`, best of 3 each, with --no-symbols on both (the
# sample's binaries are not on this machine). Then bench/diff-model-bench
# (`make bench`) times the model's side of each key of a comparison, on
# those files and on two random trees of over a million nodes each.
#
# Targets (issue 16): first screen of the comparison <= 2x NEW's alone;
# any key <= 10 ms.
set -e
. "$(dirname "$0")/lib.sh"

base=$out/diff-base-100000000.txt
new=$out/diff-new-110000000.txt
for f in "$base:100000000" "$new:110000000"; do
	path=${f%:*}
	[ -s "$path" ] && continue
	echo "generating $path ..."
	perl "$here/gen-perf.pl" "$top/data/sample.perf.txt" "${f##*:}" >"$path.tmp"
	mv "$path.tmp" "$path"
done
command -v tmux >/dev/null || { echo "tmux is needed" >&2; exit 1; }
cat "$base" "$new" >/dev/null

# A tmux server of its own for each run (one just killed may still be
# going when the next starts on its socket), killed after it.
sock=tflame-diff-bench-$$
trap 'for s in alone-1 alone-2 alone-3 both-1 both-2 both-3; do
	tmux -L "$sock-$s" kill-server 2>/dev/null; done; true' EXIT

# best_screen TAG ARGS...: the best of 3 first screens of tflame ARGS at 200x60, in ms.
best_screen() {
	tag=$1
	shift
	best=
	for run in 1 2 3; do
		ms=$(first_screen "$sock-$tag-$run" 200 60 60 \
			"env TERM=xterm-256color LANG=C.UTF-8 TFLAME_CONFIG= '$tflame' --no-symbols $*") ||
			{ echo "no screen after 60 s" >&2; exit 1; }
		tmux -L "$sock-$tag-$run" kill-server 2>/dev/null || true
		[ -z "$best" ] || [ "$ms" -lt "$best" ] && best=$ms
	done
	echo "$best"
}

alone=$(best_screen alone "'$new'")
both=$(best_screen both "'$base' '$new'")
echo "first screen, NEW alone ($(stat -c %s "$new") bytes): $alone ms"
echo "first screen, BASE NEW ($(stat -c %s "$base") + $(stat -c %s "$new") bytes): $both ms"
awk -v a="$alone" -v b="$both" 'BEGIN {
	r = b / a
	printf "ratio %.2f (target <= 2.00): %s\n", r, r <= 2 ? "ok" : "OVER"
}'

if [ ! -x "$build/bench/diff-model-bench" ]; then
	(cd "$build" && make -s bench/diff-model-bench)
fi
echo "keys of a comparison, through the model, on the perf files:"
"$build/bench/diff-model-bench" "$base" "$new"

# A call tree of over a million nodes a side, as bench/keys.sh's: 600 000
# random call paths over 300 names, from two seeds.
for seed in 42 43; do
	tree=$out/diff-tree-$seed.folded
	[ -s "$tree" ] && continue
	echo "generating $tree ..."
	perl -e '
		srand($ARGV[0]);
		for my $i (1 .. 600000) {
			my $d = 4 + int(rand(11));
			my @f = map { "fn_" . int(rand(rand() < 0.5 ? 12 : 300)) } 1 .. $d;
			print join(";", "main", @f), " ", 1 + int(rand(50)), "\n";
		}' "$seed" >"$tree.tmp"
	mv "$tree.tmp" "$tree"
done
echo "keys of a comparison, through the model, on two trees of over a million nodes:"
"$build/bench/diff-model-bench" "$out/diff-tree-42.folded" "$out/diff-tree-43.folded"
