#!/bin/sh
# Screen tests of what a new user tripped on: a new Sandwich sort (and b's
# swap) starts at the top of the table with the selection kept; b names
# the file shown in the tab bar; Ctrl-Z suspends from the search prompt,
# the thread picker and the export prompt; the transform keys after a all
# show at 80 columns. The real binary in tmux, as in screen.sh. Skipped
# (77) when tmux is missing.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tmux.sh"

# 40 functions under main. In NEW, fn_39 is the heaviest and fn_00 the
# lightest, so that by total the table reads main, fn_39 .. fn_00 and by
# name fn_00 .. fn_39, main. BASE weighs them the other way round.
new=$tmpdir/new.folded
base=$tmpdir/base.folded
awk 'BEGIN { for (i = 0; i < 40; i++) printf "main;fn_%02d %d\n", 39 - i, 100 - i }' >"$new"
awk 'BEGIN { for (i = 0; i < 40; i++) printf "main;fn_%02d %d\n", i, 100 - i }' >"$base"

# The first row of Sandwich's table: the line after its header.
first_row_is() {
	[ "$(screen | sed -n '/Function/{n;p;q;}' | awk '{ print $NF }')" = "$1" ]
}

# The selected function: the details' first line, under the last rule.
selected_is() {
	[ "$(screen | awk '/^(─)+$/ { getline; last = $0 } END { print last }' | sed 's/ *$//')" = "$1" ]
}

# not COMMAND...: COMMAND fails.
not() {
	! "$@"
}

# tab_names FILE: the tab bar names FILE as the file shown.
tab_names() {
	screen | head -1 | grep -qF "│ $1 │"
}

# row_shows ROW NAME: the table shows NAME in its ROW-th row.
row_shows() {
	[ "$(screen | sed -n '/Function/,$p' | sed -n "$(($1 + 1))p" | awk '{ print $NF }')" = "$2" ]
}

# ------------------------------------------------- a new Sandwich sort
start 160 30
run "$TFLAME" "$new"
wait_for " 1 Left Heavy" || bail "tflame did not start"
keys 3
check "Sandwich by total: main first" poll first_row_is main
# To the bottom, then two up: fn_02, the table scrolled to its end.
keys G k k
check "fn_02 selected" poll selected_is fn_02
check "the table scrolled down: main is above the top" poll not first_row_is main
# C has no order to give here (one profile): the table stays where it is.
keys C
wait_for "no change to sort by" || bail "C said nothing"
check "C with no base: the table did not move" not first_row_is main
keys F
check "F: the new order starts at the top" poll first_row_is fn_00
check "F: fn_02 still selected" poll selected_is fn_02
check "F: fn_02 shown in its place, the third row" poll row_shows 3 fn_02
keys G
check "G: main, last by name" poll selected_is main
keys T
check "T: the new order starts at the top, main first" poll first_row_is main
check "T: main still selected" poll selected_is main
# Reversed: fn_39 sorts far down, scrolled into view rather than lost.
keys j
check "j: fn_39, heaviest, selected" poll selected_is fn_39
keys T
check "T again: fn_39 still selected, far down" poll selected_is fn_39
check "T again: shown, the table scrolled to it" poll not first_row_is fn_00
keys S
check "S: by self, from the top" poll first_row_is fn_39
check "S: fn_39 selected, first" poll selected_is fn_39
keys q
wait_for "EXIT=0" || bail "tflame did not quit"

# ---------------------------------------- b: the other side, from the top
run "$TFLAME" "$base" "$new"
wait_for " 1 Left Heavy" || bail "tflame did not start on two files"
check "the tab names the file shown, NEW" poll tab_names new.folded
keys 3
check "Sandwich of NEW: main first" poll first_row_is main
keys G
check "G: fn_00, lightest in NEW" poll selected_is fn_00
keys b
check "b: the tab names the base" poll tab_names base.folded
check "b: the base's order starts at the top" poll first_row_is main
check "b: fn_00 still selected, the second row" poll selected_is fn_00
check "b: fn_00 in the second row" poll row_shows 2 fn_00
keys b
check "b again: the tab names NEW" poll tab_names new.folded
keys q
wait_for "EXIT=0" || bail "tflame did not quit"

# --------------------------------------- Ctrl-Z where keys type text
# stopped_more N: the shell has said "Stopped" more than N times.
stopped_more() {
	[ "$(screen | grep -c Stopped)" -gt "$1" ]
}

# suspend_from WHAT SHOWN: Ctrl-Z stops tflame, fg brings back SHOWN.
nr_stops=0
suspend_from() {
	keys C-z
	check "Ctrl-Z from $1: the shell says tflame stopped" poll stopped_more $nr_stops
	nr_stops=$((nr_stops + 1))
	T send-keys -t tf "fg" Enter
	check "fg: $1 is back" wait_for "$2"
	keys Escape
	wait_gone "$2"
}
T send-keys -t tf "clear" Enter
# In a directory of its own: were Ctrl-Z typed into the export prompt,
# the fg after it would write a file there.
mkdir "$tmpdir/work" || exit 99
run cd "$tmpdir/work" "&&" "$TFLAME" "$new"
wait_for " 1 Left Heavy" || bail "tflame did not start"
keys / f n
wait_for "/fn" || bail "the search prompt did not open"
suspend_from "the search prompt" "/fn"
keys t
wait_for "ticked" || bail "the picker did not open"
suspend_from "the picker" "ticked"
keys x
wait_for "export to: " || bail "the export prompt did not open"
suspend_from "the export prompt" "export to: "
keys q
check "and quits" wait_gone " 1 Left Heavy"

# ------------------------------------ the transform keys at 80 columns
start 80 24
run "$TFLAME" "$new"
wait_for " 1 Left Heavy" || bail "tflame did not start"
keys j a
check "a at 80 columns: every transform key shows" \
	wait_for "f focus F fn i callers m merge M node d drop c collapse C module r rec R direct"
keys Escape
keys q
wait_for "EXIT=0" || bail "tflame did not quit"
start 220 24
run "$TFLAME" "$new"
wait_for " 1 Left Heavy" || bail "tflame did not start"
keys j a
check "a at 220 columns: the transforms' names" \
	wait_for "transform: f focus-subtree F focus-function i focus-function-inverted m merge-function M merge-call-node d drop-function c collapse-subtree C collapse-module r collapse-recursion R collapse-direct-recursion"
keys Escape
keys q
wait_for "EXIT=0" || bail "tflame did not quit"
finish
