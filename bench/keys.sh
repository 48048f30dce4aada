#!/bin/sh
# Benchmark: the cost of one keystroke in the UI on a call tree of more
# than a million nodes, from reading the key to the end of the refresh
# that shows its effect (tflame measures it itself when TFLAME_KEY_TIMING
# names a file, and draws every key even when more are typed ahead).
#
# usage: bench/keys.sh [BUILD_DIR]
# Target (issue 3 / ARCHITECTURE.md): <= 10 ms per keystroke.
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=$here/out
build=${1:-$out/build}
build=$(cd "$build" && pwd)
mkdir -p "$out"
command -v tmux >/dev/null || { echo "tmux is needed" >&2; exit 1; }

input=$out/tree-1m.folded
if [ ! -s "$input" ]; then
	echo "generating $input ..."
	# 600 000 random call paths, 4 to 14 frames deep over 300 names: a
	# tree of well over a million nodes with a long tail of thin ones.
	perl -e '
		srand(42);
		for my $i (1 .. 600000) {
			my $d = 4 + int(rand(11));
			my @f = map { "fn_" . int(rand(rand() < 0.5 ? 12 : 300)) } 1 .. $d;
			print join(";", "main", @f), " ", 1 + int(rand(50)), "\n";
		}' >"$input.tmp"
	mv "$input.tmp" "$input"
fi
"$build/tflame" report --limit=1 "$input" | head -4

sock=tflame-keys-$$
timing=$out/keys-timing.txt
trap 'tmux -L "$sock" kill-server 2>/dev/null || true' EXIT

for size in 200x60 80x24; do
	rm -f "$timing"
	tmux -L "$sock" kill-server 2>/dev/null || true
	tmux -L "$sock" new-session -d -x "${size%x*}" -y "${size#*x}" \
		"env TERM=xterm-256color LANG=C.UTF-8 TFLAME_KEY_TIMING='$timing' '$build/tflame' '$input'"
	until tmux -L "$sock" capture-pane -p 2>/dev/null | grep -q '1 Left Heavy'; do
		sleep 0.05
	done
	# Moves, zooms, horizontal zoom and pan, deep scrolls and both panes.
	for round in 1 2 3 4 5; do
		tmux -L "$sock" send-keys j j j l l l h k Enter j j l Enter + + - L H \
			Escape Escape G g PageDown PageUp 0 c c c 2 l l j Enter Escape 1
		sleep 0.5
	done
	tmux -L "$sock" send-keys q
	while [ ! -s "$timing" ]; do sleep 0.1; done
	# The first switch to Time Order builds its chart: report it apart.
	sort -n "$timing" | awk -v size="$size" '
		{ ms[NR] = $1 }
		END {
			printf "%s: %d keys  median %.2f ms  p99 %.2f ms  max %.2f ms", size, NR,
			       ms[int(NR / 2) + 1], ms[int(NR * 0.99)], ms[NR - 1]
			printf "  (slowest: %.0f ms, the first Time Order build)\n", ms[NR]
		}'
done
