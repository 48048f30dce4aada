#!/bin/sh
# Screen tests of the group by process (P) and of a mouse drag across
# Time Order's chart (a time range, as r takes one): the real binary in
# tmux, as in screen.sh, on a recorded system-wide perf profile. The
# drag is written as the terminal writes it, SGR mouse reports: a press,
# motion with button 1 down, a release. Skipped (77) when tmux is missing.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tmux.sh"

procs="$top_srcdir/tests/data/perf/procs-pid.txt"

tab_bar() {
	screen | sed -n 1p | sed 's/ *$//'
}

row() {
	screen | sed -n "$1p" | sed 's/ *$//'
}

# row_starts N TEXT: screen line N starts with TEXT.
row_starts() {
	case $(row "$1") in
	"$2"*) return 0 ;;
	*) return 1 ;;
	esac
}

tab_ends() {
	case $(tab_bar) in
	*"$1") return 0 ;;
	*) return 1 ;;
	esac
}

no_range() {
	! tab_bar | grep -q "time 0"
}

# SGR mouse reports of button 1 at (x, y), 1-based: press, motion, release.
press() {
	T send-keys -t tf -l "$(printf '\033[<0;%d;%dM' "$1" "$2")"
}
motion() {
	T send-keys -t tf -l "$(printf '\033[<32;%d;%dM' "$1" "$2")"
}
release() {
	T send-keys -t tf -l "$(printf '\033[<0;%d;%dm' "$1" "$2")"
}

# Reversed cells of screen line N, as tmux reports their attributes: the
# drag's band is drawn reversed in the terminal's own colours.
band() {
	T capture-pane -p -e -t tf | sed -n "$1p" | grep -c "$(printf '\033\\[7m                     ')"
}

start 100 24
run "$TFLAME" "$procs"
wait_for " 1 Left Heavy" || bail "tflame did not start"
# perf's own roots: the comm, both python3 processes in one.
check "perf's roots are the comms" poll row_starts 2 "python3                       xz    "

# P: every stack under its process, comm-PID as collapse --pid names it.
keys P
check "P groups by process" poll tab_ends "│ by process"
check "the status line says how to go back" wait_for "grouped by process  (P again: back)"
check "the first row names the processes, heaviest first" \
	poll row_starts 2 "python3-19086            xz-19085                 cc1-19090      perf-19106"
check "the processes are boxes of their own" wait_details "python3-19086"
check "perf's comm root is replaced, not doubled" row_starts 3 "[unknown]      _PyO"
# A transform on top, then P again: the transform stays, over the set's stacks.
keys j a m
check "a transform over the processes" poll tab_ends "│ by process > merge [unknown]"
keys P
check "P again: the transform alone" poll tab_ends "│ merge [unknown]"
check "the status line says so" wait_for "not by process: merge [unknown]"
keys u P
check "grouped again, no transform" poll tab_ends "│ by process"

# Time Order: a drag across the chart is a time range.
keys 2
check "Time Order" wait_for "── lane 1 of 8: xz 19085"
press 20 12
motion 30 12
motion 40 12
check "the drag says what it takes" wait_for "0.243–0.511 s: release to count only this range"
check "and shows it reversed" poll test "$(band 12)" = 1
release 40 12
check "the release counts the range" poll tab_ends "│ time 0.243–0.511 s > by process"
check "the status line says so" wait_for "counting only 0.243–0.511 s in Left Heavy"
check "the band is gone" poll test "$(band 12)" = 0
keys 1
check "Left Heavy counts the range only" poll row_starts 2 "python3-19086"
check "its weight" wait_for "│ 30.2 ms │"
keys Escape
check "Esc drops the range" poll no_range
check "the whole weight again" wait_for "│ 101 ms │"

# A drag the other way, then u drops it.
keys 2
press 60 12
motion 50 12
release 50 12
check "a drag right to left" poll tab_ends "│ time 0.625–0.766 s > by process"
keys u
check "u drops it" poll no_range

# r counts the time on screen: the zoom stays, the rule says what is
# counted, and zoomed out, the ruler marks it (reversed).
keys + +
check "zoomed in on the chart" wait_for "zoomed 4.0x (0: reset)"
keys r
check "r: the range on screen is counted" poll tab_ends "│ time 0.000–0.319 s > by process"
check "r keeps the zoom" wait_for "zoomed 4.0x (0: reset)"
check "the rule shows the counted range" wait_for "counting 0.000–0.319 s  zoomed 4.0x"
ruler_band() {
	T capture-pane -p -e -t tf | sed -n "$1p" | grep -c "$(printf '\033\\[7m')"
}
check "zoomed in on the range: all the ruler is in it" poll test "$(ruler_band 9)" = 1
keys 0
check "zoomed out: the rule still says it" wait_for "counting 0.000–0.319 s ──"
check "zoomed out: the ruler marks the range" poll test "$(ruler_band 9)" = 1
keys u
check "u drops the range" poll no_range
check "and the ruler's mark" poll test "$(ruler_band 9)" = 0

# A click is still a click: it selects the box under the pointer.
click 2 10
check "a click selects a box" wait_details "xz-19085"
no_range || not_ok "a click is no time range"
# A drag in Left Heavy takes no range.
keys 1
press 10 3
motion 30 3
release 30 3
check "a drag in Left Heavy is no time range" poll no_range
keys q
check "tflame exits" wait_for "EXIT=0"

# perf script's default fields print no pids: P says where they are.
T send-keys -t tf clear Enter
poll_gone() { ! screen | grep -q "EXIT=0"; }
check "the shell is cleared" poll poll_gone
run "$TFLAME" "$top_srcdir/tests/data/perf/processes.txt"
wait_for " 1 Left Heavy" || bail "tflame did not start on processes.txt"
keys P
check "no pids: P names the comms" poll row_starts 2 "xz-?"
check "no pids: the status line says how to get them" \
	wait_for "grouped by process (no pids: perf script -F +pid)  (P again: back)"
keys P
check "P again: no hint" wait_for "not by process  (P again: back)"
keys q
check "tflame exits again" wait_for "EXIT=0"

# The group made ahead on a thread (as for millions of samples): P takes it.
T send-keys -t tf clear Enter
check "the shell is cleared again" poll poll_gone
run TFLAME_GROUP_AHEAD=0 "$TFLAME" "$procs"
wait_for " 1 Left Heavy" || bail "tflame did not start with the group made ahead"
check "the first screen is perf's roots still" poll row_starts 2 "python3                       xz    "
keys P
check "made ahead: P groups by process" poll tab_ends "│ by process"
check "made ahead: the same processes" \
	poll row_starts 2 "python3-19086            xz-19085                 cc1-19090      perf-19106"
check "made ahead: perf's comm root replaced" row_starts 3 "[unknown]      _PyO"
keys P
check "made ahead: P again goes back" poll row_starts 2 "python3                       xz    "
keys 3
check "made ahead: the Sandwich table" wait_for " 3 Sandwich"
no_procs() { ! screen | grep -q "xz-19085"; }
check "made ahead: no process in the table, ungrouped" no_procs
keys q
check "tflame exits a third time" wait_for "EXIT=0"
finish
