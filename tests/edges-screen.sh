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
wait_for " 1 L" || bail "tflame did not start"
keys t
wait_for "4 of 4 ticked" || bail "the picker did not open"
keys -l gzip
keys C-o
check "Ctrl-O: only the threads the filter shows" \
	wait_for "only the 1 shown: ticked 0, unticked 3 others"
keys Enter
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

# ------------------------------------------------ the status line of a search
start 120 24 TFLAME_CONFIG=
run "$TFLAME" data/sample.perf.txt
wait_for " 1 L" || bail "tflame did not start"
keys /
keys -l e
keys Enter
check "a search on the root: its place and the weight" \
	wait_for "/e/  match 1 of 30  matched: 1.51 s (100% of all, 100% of view)"
keys n
check "n: the next match, the weight still there" \
	wait_for "/e/  match 2 of 30  matched: 1.51 s (100% of all, 100% of view)"
keys n
check "and again" wait_for "/e/  match 3 of 30  matched: 1.51 s"
keys N N N
check "N past the first: from the bottom, said with the rest" \
	wait_for "/e/  match 30 of 30, from the bottom again  matched: 1.51 s"
keys q
wait_for "EXIT=0"
run "$TFLAME" data/sample.perf.txt
wait_for " 1 L" || bail "tflame did not start"
keys s
check "s on a process box: said so, apart from what is marked" \
	wait_for "a process, not a function: the table has none; marked: demo"
keys 1 j s
check "s: marked in Sandwich" wait_for "marked: __libc_start_call_main  (Enter: back"
keys Tab
check "the marked function's weight in Sandwich" \
	wait_for "marked: __libc_start_call_main  total 770 ms (50.8%), self 0 s (0%)"
keys BTab Enter
keys n
check "n on the marks: where, and the weight" \
	wait_for "marked: __libc_start_call_main  match 1 of 1  matched: 770 ms (50.8% of all"
keys q
wait_for "EXIT=0"

# ------------------------------------------- the picker's actions on the shown
start 80 24 TFLAME_CONFIG=
run "$TFLAME" tests/data/recorded/system-wide.txt
wait_for " 1 L" || bail "tflame did not start"
keys t
wait_for "4 of 4 ticked" || bail "the picker did not open"
check "the footer names the actions on the shown threads, after the essentials" \
	wait_for "Space tick  Enter apply  Esc cancel  Ctrl-A Ctrl-X Ctrl-O Ctrl-R shown:"
keys -l r
check "a filter: the filter line lists them" \
	wait_for "Ctrl-O only these  Ctrl-A tick  Ctrl-X untick  Ctrl-R invert"
keys C-a
check "Ctrl-A after a filter ticks (nothing to do here), never unticks" \
	wait_for "ticked 0 of 2 threads shown by the filter"
check "still all ticked" wait_for "4 of 4 ticked"
keys C-x
check "Ctrl-X: the shown unticked" wait_for "unticked 2 of 2 threads shown by the filter"
check "two of four left" wait_for "2 of 4 ticked"
check "the shown lines unticked" wait_for "[ ] swapper"
keys C-r
check "Ctrl-R: inverted" wait_for "inverted 2 threads shown by the filter"
check "all four again" wait_for "4 of 4 ticked"
keys C-o
check "Ctrl-O: only drv and swapper" wait_for "only the 2 shown: ticked 0, unticked 2 others"
keys Enter
check "applied: two threads" wait_for "showing 2 threads of 4"
keys q
wait_for "EXIT=0"

# ------------------------------------------------ the warnings, while exploring
start 80 24 TFLAME_CONFIG=
run "$TFLAME" tests/data/folded/invalid.txt
check "the status line names the key of the warnings page" \
	wait_for "1 warning while reading: listed when tflame exits, W lists them"
keys W
check "W: a page of them" wait_for "tflame: 1 warning (also printed when tflame exits; Esc closes)"
check "the warning itself, with file and line" \
	wait_for "tests/data/folded/invalid.txt:1: warning: 4 bad lines skipped"
keys Escape
check "Esc: back to the pane" wait_for " 1 L"
keys W Escape q
# The page shows the same text: wait for the exit before looking for it.
check "the explorer exits" wait_for "EXIT=0"
check "and listed after the explorer exits" \
	wait_for "invalid.txt:1: warning: 4 bad lines skipped"
run "$TFLAME" data/sample.perf.txt
wait_for " 1 L" || bail "tflame did not start"
keys W
check "W with no warnings says so" wait_for "no warnings"
keys q
wait_for "EXIT=0"

# ------------------------------------------------ the tab bar at 80 columns
sw="tests/data/recorded/system-wide.txt"
start 80 24 TFLAME_CONFIG=
run "$TFLAME" "$sw"
wait_for "│ 1.00 s" || bail "tflame did not start"
check "80 columns: the panes by initials, file and event whole" \
	poll line_matches 1 '^ 1 LH  2 TO  3 SW  │ system-wide\.txt │ cpu-clock:pppH │ all threads │ 1\.00 s *$'
keys t
wait_for "4 of 4 ticked" || bail "the picker did not open"
keys -l drv
keys C-o Enter
check "with a thread filter: the event and the filter both whole" \
	poll line_matches 1 '│ cpu-clock:pppH │ 1 thread: drv 12278 │ 423 ms *$'
keys q
wait_for "EXIT=0"
run "$TFLAME" "$events"
wait_for "1 LH" || bail "tflame did not start"
keys e
check "a long event whole, with its place" poll line_matches 1 '│ event-names\.txt │ sched:sched_switch 2/4 │ 112 events'
keys q
wait_for "EXIT=0"
ln -s "$top_srcdir/data/sample.perf.txt" "$tmpdir/nightly-recording-of-the-build-server.perf.txt"
run "$TFLAME" "$tmpdir/nightly-recording-of-the-build-server.perf.txt"
wait_for "1 LH" || bail "tflame did not start"
check "a long file name loses its middle, the event stays" \
	poll line_matches 1 '│ nightly-recordin…-server\.perf\.txt │ cpu-clock:pppH │ 1\.51 s'
keys q
wait_for "EXIT=0"

start 120 40 TFLAME_CONFIG=
run "$TFLAME" "$sw"
wait_for "│ 1.00 s" || bail "tflame did not start"
check "120 columns: the panes by name" \
	poll line_matches 1 '^ 1 Left Heavy  2 Time Order  3 Sandwich  │ system-wide\.txt │ cpu-clock:pppH │ all threads │ 1\.00 s'
keys q
wait_for "EXIT=0"

# Sandwich keeps the module when two rows have one name: parse and main
# of app, and of tool and its library. 66 columns leave no room for the
# module otherwise.
start 66 24 TFLAME_CONFIG=
run "$TFLAME" --no-symbols tests/data/perf/same-name.txt
wait_for "1 LH" || bail "tflame did not start"
keys 3
check "the module column, for two functions named parse" \
	poll line_matches 2 'Function +Module'
check "parse of libtool.so" poll line_matches 3 ' parse +libtool\.so$'
check "parse of app" poll line_matches 5 ' parse +app$'
keys q
wait_for "EXIT=0"

# A total past 64 bits: the details and the search's status line give
# amounts rounded to what the views know, shares right (exact sums:
# main 49116860184397335827 of 49116860184397335832, lex 2 x (2^64 - 1)).
start 100 20 TFLAME_CONFIG=
run "$TFLAME" tests/data/folded/wide-total.folded
wait_for " 1 L" || bail "tflame did not start"
keys Enter
check "the details: main's total rounded, its share" \
	wait_for "total ~49,116,860,184,397,335,800 (99.9% of all)   self 0"
keys 3
check "Sandwich: the amounts in E, lex's share" poll line_matches 5 '36\.9 E 75\.1% +36\.9 E 75\.1%  lex'
keys 1 /
keys -l lex
keys Enter
check "the search: matched weight and share" \
	wait_for "matched: ~36,893,488,147,419,103,200 (75.1% of all"
keys Escape q
wait_for "EXIT=0"

finish
