#!/bin/sh
# Screen tests of everyday edges of the explorer: the tab bar at 80
# columns, the thread filter across events, the picker's actions on what
# its filter shows, the status line of a search, the warnings page and
# the source view's first line. The real binary in tmux, as in
# screen.sh. Skipped (77) when tmux is missing.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tmux.sh"

events="tests/data/recorded/event-names.txt"

# line_matches N RE: screen line N matches the extended regex RE.
line_matches() {
	screen | sed -n "$1p" | grep -Eq -- "$2"
}

# ------------------------------------------- a thread filter across events
# event-names.txt: gzip has samples in sched_process_exec, sched_switch
# and cpu-clock:u, not in cpu-clock:k; head and sh run in the others.
start 120 30 TFLAME_CONFIG=
run "$TFLAME" "$events"
wait_for "1 Left Heavy" || bail "tflame did not start"
keys t
wait_for "4 of 4 ticked" || bail "the picker did not open"
keys C-a
wait_for "0 of 4 ticked" || bail "Ctrl-A on everything did not untick it"
keys -l gzip
keys Space Enter
check "one thread picked" wait_for "showing 1 thread: gzip 20232"
keys e
check "e: the same thread in the next event, and no other" \
	wait_for "showing sched:sched_switch (2 of 4), 1 thread: gzip 20232"
check "the tab bar says so too" poll line_matches 1 '│ 1 thread: gzip 20232 │'
keys e
check "e: an event without the thread says so" \
	wait_for "showing cpu-clock:k (3 of 4): none of the chosen threads has samples here (t: pick others)"
keys e
check "e: the filter is back where the thread is" \
	wait_for "showing cpu-clock:u (4 of 4), 1 thread: gzip 20232"
keys q
wait_for "EXIT=0"

finish
