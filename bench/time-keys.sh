#!/bin/sh
# Benchmark: the cost of one keystroke in Time Order with its lanes, on a
# profile of 3 M samples on 128 threads, from reading the key to the end
# of the refresh that shows its effect (TFLAME_KEY_TIMING, as keys.sh).
#
# usage: bench/time-keys.sh [BUILD_DIR]
# Target (issue 13): median <= 10 ms, 99th percentile <= 30 ms.
set -e
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || { echo "tmux is needed" >&2; exit 1; }

input=$out/lanes-3m.json
if [ ! -s "$input" ]; then
	echo "generating $input ..."
	python3 "$here/lanes-gen.py" 128 44000 >"$input.tmp"
	mv "$input.tmp" "$input"
fi
"$tflame" report --limit=1 "$input" | sed -n '3,4p'

sock=tflame-time-keys-$$
timing=$out/time-keys-timing.txt
trap 'tmux -L "$sock" kill-server 2>/dev/null || true' EXIT

for size in 200x60 80x24; do
	rm -f "$timing"
	tmux -L "$sock" kill-server 2>/dev/null || true
	tmux -L "$sock" new-session -d -x "${size%x*}" -y "${size#*x}" \
		"env TERM=xterm-256color LANG=C.UTF-8 TFLAME_KEY_TIMING='$timing' '$tflame' '$input'"
	until tmux -L "$sock" capture-pane -p 2>/dev/null | grep -q '1 Left Heavy'; do
		sleep 0.05
	done
	# The first three keys build: Time Order's lanes (2), the merged
	# chart (m), and back to a lane (m): reported apart.
	tmux -L "$sock" send-keys 2
	until tmux -L "$sock" capture-pane -p | grep -q 'lane 1 of'; do sleep 0.1; done
	tmux -L "$sock" send-keys m m
	sleep 2
	# Lanes, moves along rows across gaps, zooms to a box's span, + and -,
	# pans, the whole range, and the merged chart.
	for round in 1 2 3 4 5; do
		tmux -L "$sock" send-keys ']' ']' ']' l l l h j j l Enter ']' '[' + + - L H \
			Escape Escape 0 ']' ']' ']' ']' l l j k m l l m '[' '[' 0 h h
		sleep 1
	done
	tmux -L "$sock" send-keys q
	while [ ! -s "$timing" ]; do sleep 0.1; done
	head -3 "$timing" | awk -v size="$size" '
		{ ms[NR] = $1 }
		END { printf "%s: first Time Order %.0f ms, first merged %.0f ms, back %.1f ms\n",
			     size, ms[1], ms[2], ms[3] }'
	tail -n +4 "$timing" | sort -n | awk -v size="$size" '
		{ ms[NR] = $1 }
		END {
			printf "%s: %d keys  median %.2f ms  p99 %.2f ms  max %.2f ms\n", size, NR,
			       ms[int(NR / 2) + 1], ms[int(NR * 0.99)], ms[NR]
		}'
done
