#!/bin/sh
# Screen tests of Time Order's lanes: the overview of the threads, the
# ruler, the focus between lanes, zoom and the time range kept across
# them, and the thread picker's sparklines; at 80x24 and 200x60. The real
# binary in tmux, as in screen.sh. Skipped (77) when tmux is missing.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tmux.sh"

two="tests/data/chrome/two-threads.json"

# line_matches N RE: screen line N matches the extended regex RE.
line_matches() {
	screen | sed -n "$1p" | grep -Eq -- "$2"
}

# widest W: no line of the screen is wider than W columns.
widest() {
	[ "$(screen | wc -L)" -le "$1" ]
}

# ------------------------------------------------ two threads, 80x24
# loader (tid 2) runs C for 100 ms; ui (tid 1) runs A for the first 10 ms
# and B for the last 10.
start 80 24
run "$TFLAME" "$two"
wait_for " 1 L" || bail "tflame did not start"
keys 2
check "the overview: the heaviest thread first, focused" poll line_matches 2 '^▶ loader 2 +█{60,}$'
check "the other lane: busy at both ends, idle between" \
	poll line_matches 3 '^  ui 1 +█{5,} {40,}█{5,}$'
check "the ruler under the overview, in time" poll line_matches 4 '^0 +10 ms +20 ms .* 90 ms'
check "the chart is the focused lane's" wait_for "── lane 1 of 2: loader 2 ──"
check "its box first" wait_details "C"
check "the status line lists the lane keys" wait_for "[ ] lanes  m merged"
keys ']'
check "]: the next lane" wait_for "── lane 2 of 2: ui 1 ──"
check "the focus marker moves" poll line_matches 3 '^▶ ui 1 '
check "its chart: A first" wait_details "A"
check "A's time: start, end, shares and length" \
	wait_for "time       0.000000 – 0.010000 s (0–10.0%), 10.0 ms (10.0% of the timeline)"
check "the thread of the lane" wait_for "thread     ui  pid 1  tid 1"
keys ']'
check "] on the last lane says so" wait_for "the last lane: the lightest thread"
keys l
check "l: the next box in time, across the idle gap" wait_details "B"
check "B's time" wait_for "0.090000 – 0.100000 s (90.0–100%), 10.0 ms (10.0% of the timeline)"
keys h
check "h: back across the gap" wait_details "A"
keys Enter
check "Enter zooms to the box's time span" wait_for "lane 2 of 2: ui 1  zoom 1: A (Esc: back)"
check "the ruler follows the zoom: milliseconds of A's 10" \
	poll line_matches 4 '^0 +1 ms +2 ms .* 9 ms'
check "the sparklines follow too: ui busy all through A" \
	poll line_matches 3 '^▶ ui 1 +█{60,}$'
keys '['
check "[: the lane above, on the same time range" wait_for "── lane 1 of 2: loader 2  zoomed 10.0x (0: reset) ──"
check "the ruler keeps the range" poll line_matches 4 '^0 +1 ms +2 ms .* 9 ms'
keys 0
check "0: the whole range again" poll line_matches 4 '^0 +10 ms +20 ms .* 90 ms'
check "0: no zoom left" wait_gone "zoomed"
keys m
check "m: the selection merged" wait_for "── 2 threads merged (m: one lane) ──"
check "the focused lane stays marked" poll line_matches 2 '^▶ loader 2 '
keys m
check "m again: the focused lane" wait_for "── lane 1 of 2: loader 2 ──"
click 3 3
check "a click on a lane focuses it" wait_for "── lane 2 of 2: ui 1 ──"
check "80 columns" widest 80
keys t
check "the picker: an activity column" wait_for "weight      %  activity"
check "each thread's sparkline over the whole profile" \
	poll sh -c "tmux -L '$sock' capture-pane -p -t tf | grep -Eq '^ \\[x\\]   ui .*█[▁▂▃▄▅▆▇]? +[▁▂▃▄▅▆▇]?█ *\$'"
keys Escape
keys '?' PageDown
check "the help lists the lane keys" wait_for "Time Order: threads as lanes"
check "[ among them" poll sh -c "tmux -L '$sock' capture-pane -p -t tf | grep -q '^  \\[  *focus the lane above'"
keys q q
check "quits" wait_for "EXIT=0"

# Without UTF-8: the sparklines and the marker in ASCII.
start 80 24 LANG=C LC_ALL=C
run "$TFLAME" "$two"
wait_for " 1 L" || bail "tflame did not start"
keys 2
check "ASCII: the marker and a full sparkline" poll line_matches 2 '^> loader 2 +@{60,}$'
check "ASCII: idle columns blank" poll line_matches 3 '^  ui 1 +@{5,} {40,}@{5,}$'
keys q
wait_for "EXIT=0"

# -------------------------------------------- one thread: the whole height
start 80 24
run "$TFLAME" tests/data/chrome/span.json
wait_for " 1 L" || bail "tflame did not start"
keys 2
check "one thread: no overview, the ruler on top" poll line_matches 2 '^0 +10 ms +20 ms'
check "the chart right under it" poll line_matches 3 '^request'
check "no lane named on the rule" poll sh -c "! tmux -L '$sock' capture-pane -p -t tf | grep -q 'lane 1 of'"
keys ']'
check "] with one thread says why" wait_for "one thread selected: no other lane"
keys q
wait_for "EXIT=0"

# ------------------------------------ seven threads: the overview scrolls
start 80 16
run "$TFLAME" tests/data/perf/processes.txt
wait_for " 1 L" || bail "tflame did not start"
keys 2
check "a third of the height: 4 of the 7 lanes" poll line_matches 6 '^0 '
check "the heaviest on top" poll line_matches 2 '^▶ xz 4101 '
keys ']' ']' ']' ']' ']'
check "] five times: the sixth lane" wait_for "── lane 6 of 7: ls 4120 ──"
check "the overview scrolled to the focus" poll line_matches 5 '^▶ ls 4120 '
check "the top lanes scrolled off" poll sh -c "! tmux -L '$sock' capture-pane -p -t tf | grep -q '^  xz 4101'"
keys q
wait_for "EXIT=0"

# ------------------------------------------------- the sample at 200x60
start 200 60
run "$TFLAME" data/sample.perf.txt
wait_for " 1 L" || bail "tflame did not start"
keys 2
check "200x60: both threads in the overview" poll line_matches 3 '^  compressor 11195 +[▁▂▃▄▅▆▇█]{150,}$'
check "200x60: the ruler in seconds" poll line_matches 4 '^0 +100 ms +200 ms .*1\.4 s'
check "200 columns" widest 200
keys + +
check "+: the ruler labels narrower times" poll line_matches 4 '^0 +20 ms +40 ms'
check "+ keeps the lanes" wait_for "lane 1 of 2: demo 11193  zoomed 4.0x"
keys q
wait_for "EXIT=0"

start 80 24
run "$TFLAME" data/sample.perf.txt
wait_for " 1 L" || bail "tflame did not start"
keys 2
check "80x24: the overview, then the ruler" poll line_matches 4 '^0 +200 ms +400 ms'
check "80x24: the chart under the ruler" poll line_matches 5 '^d'
check "80x24: within 80 columns" widest 80
keys q
wait_for "EXIT=0"

finish
