#!/bin/sh
# Screen tests: the real binary in tmux, driven with send-keys and read
# with capture-pane, asserting on what a person sees. Every wait polls the
# screen until the expected text shows (or a timeout), never a fixed sleep.
# Skipped (77) when tmux is missing.

. "$top_srcdir/tests/lib.sh"

sample="$top_srcdir/data/sample.perf.txt"

# ---------------------------------------------------------- without tmux
# Not a terminal: a clear message naming the text commands, and exit 2.
"$TFLAME" "$sample" </dev/null >"$tmpdir/out" 2>"$tmpdir/err"
status=$?
if [ "$status" -eq 2 ] && grep -q "tflame report" "$tmpdir/err" &&
	grep -q "tflame dump" "$tmpdir/err" && [ ! -s "$tmpdir/out" ]; then
	ok "stdout not a terminal: exit 2, points to report and dump"
else
	not_ok "stdout not a terminal: exit 2, points to report and dump" \
		"exit $status" "$(cat "$tmpdir/err")"
fi

. "$top_srcdir/tests/tmux.sh"

# line_starts N TEXT: line N of the screen starts with TEXT.
line_starts() {
	case $(screen | sed -n "$1p") in
	"$2"*) return 0 ;;
	esac
	return 1
}

# above_rule_starts TEXT: the line right above the rule starts with TEXT
# (the root row when the panes are flipped).
above_rule_starts() {
	case $(screen | sed -n '/^──/{x;p;q;};h') in
	"$1"*) return 0 ;;
	esac
	return 1
}

# line_is_just TEXT: some line holds TEXT and spaces only.
line_is_just() {
	screen | grep -q "^$1 *\$"
}

# prompt_back: the shell prompt is the last line written.
prompt_back() {
	[ "$(screen | sed '/^ *$/d' | tail -1)" = 'tfsh$' ]
}

# dimmed NAME: a box starting with NAME is drawn dimmed (a search does not match it).
dimmed() {
	T capture-pane -p -e -t tf | sed 's/\x1b\[48;5;236m//g' | grep -q "38;5;246m$1"
}

# wheel BUTTON X Y: SGR mouse report of a wheel turn (64 up, 65 down).
wheel() {
	T send-keys -t tf -l "$(printf '\033[<%d;%d;%dM' "$1" "$2" "$3")"
}

# ------------------------------------------------------------ opening
start 100 30
run "$TFLAME" data/sample.perf.txt
check "opens on Left Heavy" wait_for "__libc_start_call_main"
line1=$(screen | head -1)
case $line1 in
*"1 Left Heavy"*"2 Time Order"*"3 Sandwich"*"sample.perf.txt"*"cpu-clock"*"all threads"*"1.51 s"*)
	ok "tab bar: tabs, file, event, threads, total" ;;
*)
	not_ok "tab bar: tabs, file, event, threads, total" "$line1" ;;
esac
# Two processes (perf printed no pids: demo and compressor are two comms):
# the outermost frames name them.
check "the outermost frame, a process, is selected first" wait_details "demo"
check "details: module, total and self" wait_for "this box   total 770 ms (50.8% of all)"
check "details: the function over all its boxes" wait_for "function   total 770 ms"
# A process frame has no self time: "0 s", and no share of nothing.
check "details: no self is 0 s, with no 0% share" \
	wait_for "this box   total 770 ms (50.8% of all)   self 0 s"
if screen | grep -q "(0% of all"; then
	not_ok "details: no \"0% of all\" for nothing" "$(screen | tail -5)"
else
	ok "details: no \"0% of all\" for nothing"
fi
check "icicle: root at the top" poll line_starts 2 "demo"

# ------------------------------------------------------------- moving
keys j
check "j moves to the callee" wait_details "__libc_start_call_main"
keys j
check "j again" wait_details "main"
keys j
check "j again: the heaviest callee" wait_details "render_frame"
keys l
check "l moves to the right neighbour" wait_details "spin"
check "its numbers" wait_for "this box   total 83.1 ms (5.5% of all)"
keys h
check "h moves back" wait_details "render_frame"
keys k
check "k moves to the caller" wait_details "main"
keys j
check "j comes back to the box it came from" wait_details "render_frame"
keys Right Right
check "a sliver narrower than a cell can be selected" wait_details "clock_gettime@@GLIBC_2.17"
keys Right
check "arrows move like h/j/k/l, a cell at a time" wait_details "compress_block"
keys G
check "G follows the heaviest callees to a leaf" wait_details "finish_task_switch.isra.0"
keys g
check "g goes to the outermost frame" wait_details "compressor"
keys l
check "no neighbour: a message" wait_for "no box to the right on this row"

# ------------------------------------------------------------- zooming
keys h j j j l
check "select spin" wait_details "spin"
keys Enter
check "Enter zooms: the rule names the zoom" wait_for "zoom 1: spin (Esc: back)"
check "zoomed: the box is all of the zoom" wait_for "83.1 ms (5.5% of all, 100% of zoom)"
check "zoomed: the box spans the width" poll line_is_just spin
keys Escape
check "Esc zooms out" wait_gone "zoom 1:"
check "Esc keeps the box it left selected" wait_details "spin"
keys +
check "+ zooms in around the selection" wait_for "zoomed 2.0x (0: reset)"
keys +
check "+ again" wait_for "zoomed 4.0x"
keys -
check "- zooms out" wait_for "zoomed 2.0x"
keys 0
check "0 resets the zoom" wait_gone "zoomed"
keys Enter BSpace
check "Backspace zooms out too" wait_gone "zoom 1:"
keys Escape
check "Esc when not zoomed says so" wait_for "not zoomed in"

# ------------------------------------------------------------- panes
keys 2
check "2: Time Order, with the time of the box" \
	wait_for "time       0.000000 – 0.041091 s (0–2.7%), 41.1 ms (2.7% of the timeline)"
check "2: Time Order names the thread of the box" wait_for "thread     demo  tid 11193"
# A box is a stretch of time, its share of the timeline; a function's is of the weight.
check "2: the box spans time, a share of the timeline" \
	wait_for "this box   spans 41.1 ms (2.7% of the timeline)"
check "2: the function's share is of all the weight" \
	wait_for "function   total 770 ms (50.8% of all weight)"
no_share_of_all() { ! screen | grep -q "% of all)"; }
check "2: no bare \"of all\" in Time Order's details" no_share_of_all
keys 3
check "3: Sandwich, its table" wait_for "Total▼"
keys Tab Tab Tab
check "Tab tours Sandwich's table, callers and callees, then back to Left Heavy" \
	wait_gone "Callees of"
check "Left Heavy kept its selection" wait_details "spin"
keys e
check "e with one profile says so" wait_for "this file holds one profile"

# ------------------------------------------------------------- showing
keys f
check "f flips: root at the bottom" wait_for "root at the bottom"
check "flipped: the outermost frame is right above the rule" \
	poll above_rule_starts "demo"
keys f
check "f flips back" wait_for "root at the top (icicle)"
keys c
check "c: colours by module" wait_for "colours by module"
keys c c
check "c cycles back to colours by function" wait_for "colours by function"
keys d
check "d: a page with the call path" wait_for "call path, outermost first"
check "the page lists the outermost frame" wait_for "     1 demo"
keys q
check "q closes the page" wait_for " 1 L"

# ------------------------------------------------------------- help
keys '?'
check "? shows the help" wait_for "keys (q, Esc or ? closes this page)"
check "help lists the thread picker" wait_for "choose the threads to show"
check "help lists the zoom key" wait_for "Enter              zoom: the selected box spans the width"
check "help says how h and l pan" wait_for "the box runs off the screen, pan left to its edge"
keys G
check "G scrolls the help to its end" wait_for "Reading the panes"
check "help says what the process boxes are" wait_for "the processes (the samples' comm)"
keys q
check "q closes the help, tflame still runs" wait_for " 1 L"
keys v
check "an unbound key points to the help" wait_for "no action on v: ? lists the keys"

# ------------------------------------------------------------- sandwich
keys 0 3
check "Sandwich: the table's columns" \
	wait_for "         Total▼            Self  Function                           Module"
check "the heaviest function first, with its weights" \
	poll line_starts 3 "   1.01 s 66.4%    999 ms 66.0%  spin"
check "the callers of the selected function" wait_for "── Callers of spin ──"
check "and its callees, side by side" wait_for "│── Callees of spin ──"
check "the details name the function" wait_for "function   total 1.01 s (66.4% of all)"
keys j
check "j: the next row, and its trees" wait_for "Callers of __libc_start_call_main"
keys S
check "S sorts by self" wait_for "Self▼"
check "S: the selection keeps its function" wait_for "Callers of __libc_start_call_main"
keys g
check "g: the first row, heaviest self first" wait_for "Callers of spin"
keys S
check "S again reverses the order" wait_for "Self▲"
keys F
check "F sorts by name" wait_for "Function▼"
keys G
check "G: the last row" wait_for "21/21"
keys T g
check "T: by total again" wait_for "Total▼"
keys Tab
check "Tab: the callers have the focus" \
	wait_for "this box   total 1.01 s (66.4% of all, 100% of spin)"
keys j
check "j in the callers: the heaviest caller" wait_for "this box   total 464 ms (30.7% of all, 46.2% of spin)"
keys Tab
check "Tab: then the callees" wait_for "100% of spin)   self 999 ms (66.0% of all,"
keys BTab s
check "s on a caller: Sandwich of that function" wait_for "Callers of compress_block"
check "the table has the focus again" wait_for "function   total 464 ms (30.7% of all)"
click 10 5
check "a click on a row selects it" wait_for "Callers of main"
click 70 16
check "a click on the callees gives them the focus" \
	wait_for "this box   total 770 ms (50.8% of all, 100% of main)"
keys BTab BTab g
check "g: back to the first row" wait_for "Callers of spin"
keys Tab Tab
wait_for "99.4% of spin" || bail "the callees do not have the focus"
keys BTab BTab
check "Shift-Tab: back to the table" wait_for "function   total 1.01 s"
keys d
check "d on a row: the function's page" wait_for "Direct callers (4), heaviest first"
keys q

# from a box of Left Heavy to its function in Sandwich, and back with its boxes marked
keys 1 g j j j
wait_details "render_frame" || bail "render_frame is not selected"
keys s
check "s: the function of the box in Sandwich" wait_for "Callers of render_frame"
check "s marks the function" wait_for "marked: render_frame"
keys j Enter
check "Enter on a row: back to Left Heavy, on a box of the row's function" \
	wait_details "compress_block"
check "and says what is marked" wait_for "marked: compress_block  (n N: its boxes; Esc: unmark)"
keys n
check "n: the next box of the function" wait_for "match 2 of 5"
keys k
check "the status line says what is marked, and its weight" \
	wait_for "marked: compress_block  match 1 of 5  matched: 464 ms (30.7% of all, 30.7% of view)"
check "the other boxes are dimmed" poll dimmed main
keys 2 j s
check "s in Time Order: Sandwich of the box's function" wait_for "marked: __libc_start_call_main"
keys Enter
check "Enter goes back to Time Order, the pane it came from" wait_for "thread     "
keys 1
keys Escape
check "Esc with no zoom clears the marks" wait_for "marks cleared"
if T capture-pane -p -e -t tf | grep -q '38;5;246m'; then
	not_ok "nothing is dimmed any more" "$(T capture-pane -p -e -t tf | sed -n 2,4p | cat -v)"
else
	ok "nothing is dimmed any more"
fi

# ------------------------------------------------------------- search
keys 0 g /
check "/ opens the prompt on the bottom line" wait_for "Enter: search  Esc: cancel"
keys -l 'spin('
check "smart case: no capital, case ignored" wait_for "ignoring case (no capital)"
keys Enter
check "a bad regex: pcre2's message and offset, in the prompt" \
	wait_for "/spin(   missing closing parenthesis at offset 5"
keys BSpace
check "an edit takes the error away" wait_gone "missing closing"
keys Enter
check "Enter searches: matched weight, of all and of the view" \
	wait_for "/spin/  matched: 1.01 s (66.4% of all, 66.4% of view)"
check "search: boxes that do not match are dimmed" poll dimmed main
keys n
check "n: the first match, row by row" wait_for "match 1 of 14"
check "n selects it" wait_details "spin"
keys n
check "n again: the next" wait_for "match 2 of 14"
keys N N
check "N from the first goes round to the last" wait_for "match 14 of 14, from the bottom again"
check "the last match is narrower than a cell: zoomed in on" wait_for "── zoomed "
keys 0 g l Enter
check "zoomed: the share of the view follows the zoom" \
	wait_for "/spin/  matched: 1.01 s (66.4% of all, 99.7% of view)"
keys 0 2
check "the search holds in Time Order, in time: the heaviest thread's lane" \
	wait_for "/spin/  matched: 263 ms (17.5% of the timeline, 17.5% of view)"
keys ']'
check "]: the next lane, its own matches" \
	wait_for "/spin/  matched: 743 ms (49.5% of the timeline, 49.5% of view)"
keys m
check "m: the threads merged" \
	wait_for "/spin/  matched: 924 ms (61.6% of the timeline, 61.6% of view)"
check "m: the rule says so" wait_for "── 2 threads merged (m: one lane) ──"
keys m '['
check "m again and [: the heaviest thread's lane" wait_for "── lane 1 of 2: demo 11193 ──"
keys 3
check "in Sandwich the search filters the table" wait_for "/spin/  1 of 21 functions match"
keys Tab
check "in the callers, the matched weight" \
	wait_for "/spin/  match 1 of 1  matched: 1.01 s (66.4% of all, 100% of view)"
keys n
check "and n goes through their matches" wait_for "match 1 of 1"
keys BTab
keys /
wait_for "Enter: search" || bail "no prompt"
keys -l 'SPIN'
check "a capital makes the search case-sensitive" wait_for "case-sensitive"
keys Escape
check "Esc leaves the prompt, keeping the search" wait_for "/spin/  1 of 21 functions match"
keys /
keys -l 'SPIN'
keys Enter
check "nothing matches: said so" wait_for "no frame name matches /SPIN/ (Esc clears the search)"
check "and the table is empty" wait_for "no function matches the search (Esc clears it)"
keys /
keys -l 'xyz'
keys C-u
keys -l 'shuffle|memset'
keys Enter
check "Ctrl-U empties the prompt; alternation" wait_for "/shuffle|memset/  2 of 21 functions match"
keys Escape
check "Esc clears the search" wait_for "search cleared"
keys / Up
check "Up in the prompt: the last search" wait_for "/shuffle|memset "
keys C-u Enter
keys 1

# ------------------------------------------------------------- threads
keys g t
check "t: the thread picker" wait_for "Threads of cpu-clock:pppH: 2 of 2 ticked"
check "threads heaviest first" poll line_starts 4 " [x] demo  "
check "with tid, weight and share" wait_for "11193    770 ms  50.8%"
check "the second thread" poll line_starts 5 " [x] compressor"
keys -l comp
check "typing filters the list" wait_gone "[x] demo"
keys Space
check "Space unticks the thread" wait_for "[ ] compressor"
check "the title counts the ticks" wait_for "1 of 2 ticked"
keys C-u
check "Ctrl-U empties the filter" wait_for "[x] demo"
keys Enter
check "Enter applies: the tab bar names the thread" wait_for "│ 1 thread: demo 11193 │ 770 ms"
check "and says so" wait_for "showing 1 thread: demo 11193"
check "Left Heavy shows only that thread" wait_gone "start_thread"
check "and keeps the selected box" wait_details "demo"
check "its shares are of what the filter keeps" \
	wait_for "this box   total 770 ms (100% of all)"
keys 3
check "Sandwich follows the filter" wait_for " 770 ms  100%       0 s    0%  main "
keys 2
check "Time Order too" wait_for "thread     demo  tid 11193"
keys t
wait_for "1 of 2 ticked" || bail "the picker did not open"
keys C-a
check "Ctrl-A ticks every thread shown" wait_for "2 of 2 ticked"
keys C-a
check "Ctrl-A again keeps them ticked" wait_for "ticked 0 of 2 threads shown"
keys C-x
check "Ctrl-X unticks them" wait_for "0 of 2 ticked"
keys Enter
check "nothing ticked: Enter says so" wait_for "no thread ticked: Space ticks one, Esc cancels"
keys Escape
check "Esc cancels: the filter stays" wait_for "│ 1 thread: demo 11193 │"
keys t C-a Enter
check "all ticked: all threads" wait_for "showing all threads"
check "the tab bar too" wait_for "│ all threads │ 1.51 s"
keys 1

# ------------------------------------------------------------- mouse
keys 0 g
click 60 5
check "a click selects the box under the pointer" wait_details "compress_block"
click 5 3
click 5 3
check "a double click zooms" wait_for "zoom 1: __libc_start_call_main"
keys 0
click 20 1
check "a click on a tab switches panes" wait_for "time       0."
click 3 1

# ------------------------------------------------------------- resize
T resize-window -t tf -x 80 -y 24
check "resize to 80x24: rows window shows" wait_for "rows 1-17 of 22"
width=$(screen | wc -L)
[ "$width" -le 80 ] && ok "nothing drawn past 80 columns" ||
	not_ok "nothing drawn past 80 columns" "widest line: $width"
check "80 columns: tabs by initials, file and event kept" \
	wait_for "1 LH  2 TO  3 SW  │ sample.perf.txt │ cpu-clock:pppH │"
keys PageDown
check "PgDn scrolls the rows down" wait_for "rows 6-22 of 22"
keys PageUp
check "PgUp scrolls up" wait_for "rows 1-17 of 22"
wheel 65 10 10
check "the wheel scrolls three rows down" wait_for "rows 4-20 of 22"
wheel 64 10 10
check "and up" wait_for "rows 1-17 of 22"
T resize-window -t tf -x 200 -y 60
check "resize to 200x60: no rows window" wait_gone "rows 1-"

# ------------------------------------------------------------- quit
keys q
check "q quits with status 0" wait_for "EXIT=0"
check "the alternate screen is left" wait_gone " 1 L"
check "the prompt is back" poll prompt_back

run "$TFLAME" data/sample.perf.txt
wait_for " 1 L" || bail "tflame did not start again"
keys C-c
check "Ctrl-C quits cleanly" wait_for "EXIT=0"

# Ctrl-Z suspends to the shell, fg comes back to the same screen.
run "$TFLAME" data/sample.perf.txt
wait_for " 1 L" || bail "tflame did not start again"
keys C-z
check "Ctrl-Z: the shell says tflame stopped" wait_for "Stopped"
check "Ctrl-Z: the screen is the shell's" wait_gone " 1 L"
T send-keys -t tf "fg" Enter
check "fg: tflame draws again" wait_for " 1 L"
keys q
check "and quits" wait_gone " 1 L"
T send-keys -t tf "clear" Enter
poll prompt_back

# A SIGTERM from elsewhere: the terminal is restored, then tflame dies of it.
run "sh -c '\"$TFLAME\" data/sample.perf.txt </dev/tty & echo \$! >\"$tmpdir/pid\"; wait \$!'"
wait_for " 1 L" || bail "tflame did not start in the background"
kill -TERM "$(cat "$tmpdir/pid")"
check "SIGTERM: the terminal is restored" wait_gone " 1 L"
check "SIGTERM: tflame dies of the signal" wait_for "EXIT=143"

# ------------------------------------------------------------- processes
# With pids, threads sit under their process; ticking a process ticks them.
start 100 30
run "$TFLAME" tests/data/recorded/pid-tid-period.txt
wait_for " 1 L" || bail "tflame did not start"
keys t
check "a process over its threads" poll line_starts 4 " [x] demo  "
check "its threads, indented, with pid and tid" poll line_starts 5 " [x]   demo  "
check "the weights of the event's unit" wait_for "12066    12068        80  49.7%"
keys Space
check "Space on a process unticks its threads" wait_for "0 of 2 ticked"
keys Down Space
check "one thread ticked: the process is partly ticked" poll line_starts 4 " [-] demo"
keys -l 12068
check "the filter takes a tid" wait_gone "[x]   demo"
keys Enter
check "one thread of the process" wait_for "1 thread: demo 12066"
keys q
wait_for "EXIT=0"

# Several threads, at 80x24: the tab bar keeps the filter, the file gives way.
start 80 24
run "$TFLAME" tests/data/recorded/system-wide.txt
wait_for " 1 L" || bail "tflame did not start"
keys t
check "four threads, heaviest first" poll line_starts 4 " [x] m_test_input"
check "the lightest last" poll line_starts 7 " [x] cat"
keys C-x
keys -l swap
check "type to filter, after Ctrl-X unticks all" wait_for "[ ] swapper"
keys Space BSpace BSpace BSpace BSpace
keys -l cat
keys Space Enter
check "80 columns: the tab bar shows the filter" wait_for "│ 2 threads of 4 │ 72.2 ms"
width=$(screen | wc -L)
[ "$width" -le 80 ] && ok "the picker's filter draws within 80 columns" ||
	not_ok "the picker's filter draws within 80 columns" "widest line: $width"
keys 3
check "Sandwich at 80x24: table, callers and callees" wait_for "── Callers of "
width=$(screen | wc -L)
[ "$width" -le 80 ] && ok "Sandwich draws within 80 columns" ||
	not_ok "Sandwich draws within 80 columns" "widest line: $width"
keys q
wait_for "EXIT=0"

# A system-wide profile at 80x24: the outermost frames of most stacks are
# junk perf could not name, but the first row names the processes.
start 80 24
run "$TFLAME" tests/data/perf/processes.txt
wait_for " 1 L" || bail "tflame did not start"
check "the first row names the processes, heaviest first" \
	poll line_starts 2 "xz                              cc1             python3     swapper"
check "the junk comes under them" poll line_starts 3 "[unknown]                       [unknown]"
check "a process is selected first" wait_details "xz"
keys l
check "l: the next process" wait_details "cc1"
keys j
check "j: what cc1 runs" wait_details "[unknown]"
keys 3
# 22 functions; with its 6 processes, the table would have 28 rows.
check "a process is no row of Sandwich's table" wait_for "Module        1/22"
check "but the callers of a function end in the processes" wait_for "xz                      cc1"
keys 1 /
keys -l '^python'
keys Enter
check "a process can be searched" wait_for "/^python/  matched: 3.00 ms (15.0% of all"
keys q
wait_for "EXIT=0"

# ------------------------------------------------------------- terminals
start 100 30 LANG=C LC_ALL=C
run "$TFLAME" data/sample.perf.txt
check "C locale: ASCII rule" wait_for "----------"
check "C locale: ASCII ellipsis" wait_for "__memmove_avx512~"
if screen | grep -q '…\|─\|│'; then
	not_ok "C locale: no UTF-8 drawn" "$(screen)"
else
	ok "C locale: no UTF-8 drawn"
fi
keys q
wait_for "EXIT=0"

start 100 30
run "$TFLAME" data/sample.perf.txt
wait_for " 1 L" || bail "tflame did not start"
if T capture-pane -p -e -t tf | grep -q '48;5;'; then
	ok "256 colours: boxes have a background"
else
	not_ok "256 colours: boxes have a background" "$(T capture-pane -p -e -t tf | head -3)"
fi
keys q
wait_for "EXIT=0"

start 100 30 NO_COLOR=1
run NO_COLOR=1 "$TFLAME" data/sample.perf.txt
wait_for " 1 L" || bail "tflame did not start with NO_COLOR"
if T capture-pane -p -e -t tf | grep -q '38;5;\|48;5;\|\[4[0-7]m'; then
	not_ok "NO_COLOR: no colours" "$(T capture-pane -p -e -t tf | head -3 | cat -v)"
else
	ok "NO_COLOR: no colours"
fi
check "NO_COLOR: a bar starts each box" wait_for "│main"
keys q
wait_for "EXIT=0"

# ------------------------------------------------------------- source
# A small C file, a perf script -F+srcline profile of it (each frame with
# its file:line, so each line is a box of its own), a file the profile
# names that is not there, and a hostile one found with --source-dir.
src="$tmpdir/src"
mkdir -p "$src/elsewhere"
cat >"$src/demo.c" <<'EOF'
#include <stdio.h>

static int
spin(int n)
{
	int x = 0;

	for (int i = 0; i < n; i++)
		x += i * i;
	return x;
}

static int
fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int
main(void)
{
	int a = spin(100000);
	int b = fib(30);

	gone();
	evil();
	printf("%d %d\n", a, b);
	return 0;
}
EOF
printf 'int evil;\nchar *s = "\033[31mred\007 \033]0;pwned\007 \377";\n\tint tabbed;\n' \
	>"$src/elsewhere/hostile.c"
# sample PERIOD FRAME:FILE:LINE...: one sample, leaf first.
sample() {
	printf 'demo 100 1.0: %s cpu-clock:\n' "$1"
	shift
	for f in "$@"; do
		printf '\t1000 %s (%s/demo)\n  %s\n' "${f%%@*}" "$src" "${f#*@}"
	done
	echo
}
{
	sample 64 "spin@$src/demo.c:9" "main@$src/demo.c:22"
	sample 20 "spin@$src/demo.c:8" "main@$src/demo.c:22"
	sample 50 "fib@$src/demo.c:16" "fib@$src/demo.c:16" "main@$src/demo.c:23"
	sample 26 "fib@$src/demo.c:16" "main@$src/demo.c:23"
	sample 30 "gone@/nonexistent/gone.c:5" "main@$src/demo.c:26"
	sample 10 "evil@hostile.c:2" "main@$src/demo.c:27"
} >"$src/prof.txt"

start 100 30
run "$TFLAME" --source-dir="$src/elsewhere" "$src/prof.txt"
check "source: the profile opens" wait_details "main"
keys j
check "source: on spin's heaviest box" wait_details "spin"
keys o
check "o opens the source of the box's file" wait_for "Source $src/demo.c"
check "the title names the function and the line" wait_for "line 9/29  spin"
check "the gutter: self and total of line 9, marked" \
	wait_for " 32.0%  32.0%    9●                 x += i * i;"
check "the gutter: another line of spin" wait_for " 10.0%  10.0%    8●         for"
check "recursion through one line counts once" \
	wait_for " 38.0%  38.0%   16●         return n < 2"
check "a caller's line: total only, marked apart" \
	wait_for "        42.0%   22○         int a = spin(100000);"
check "a line with no weight has no numbers" poll line_is_just "                 7"
check "the cursor line in amounts" \
	wait_for "line 9: self 64 ns (32.0%)  total 64 ns (32.0%)  in spin"
keys n
check "n: the next line with weight" wait_for "line 16: self 76 ns (38.0%)"
keys n n n n n
check "n at the last one says so" wait_for "no line with weight below"
keys N
check "N: the previous line with weight" wait_for "line 26: self 0 s  total 30 ns (15.0%)  in main"
keys g
check "g: the first line" wait_for "line 1: no samples"
keys l
check "l scrolls the code, not the gutter" wait_for " 32.0%  32.0%    9●         x += i * i;"
keys h
check "h scrolls it back" wait_for " 32.0%  32.0%    9●                 x += i * i;"
keys Escape
check "Esc goes back to the pane" wait_details "spin"
check "with the tabs" poll line_starts 1 " 1 Left Heavy"

# The file the profile names is not there: why, and the lines all the same.
keys k l l j
check "source: on the box of a missing file" wait_details "gone"
keys o
check "a missing file: says why" \
	wait_for "cannot show the source: no such file: /nonexistent/gone.c"
check "and where to look" wait_for "--source-dir=DIR says where to look"
check "and lists its lines" wait_for " 15.0%  15.0%  /nonexistent/gone.c:5  gone"
keys q
check "q closes the source, not tflame" wait_details "gone"

# A relative path found with --source-dir, control bytes escaped.
keys k l j
check "source: on the box of the hostile file" wait_details "evil"
keys o
check "--source-dir finds a relative path" wait_for "Source $src/elsewhere/hostile.c"
check "control bytes and bad UTF-8 are escaped, tabs expanded" \
	wait_for '  5.0%   5.0%    2● char *s = "\e[31mred\x07 \e]0;pwned\x07 \xff";'
check "a tab is spaces" wait_for "   3          int tabbed;"
# Had they reached the terminal, the pane would be titled, and text red.
if [ "$(T display-message -p -t tf '#{pane_title}')" != pwned ] &&
	! T capture-pane -p -e -t tf | grep -q "$(printf '\033')\\[31m"; then
	ok "no escape sequence from the file reaches the terminal"
else
	not_ok "no escape sequence from the file reaches the terminal" "$(screen)"
fi
keys o
check "o again closes it" wait_details "evil"

# From Sandwich's table: the function's hottest line.
keys 3
check "source: Sandwich" wait_for "Self  Function"
keys o
check "o on a row: the function's file" wait_for "Source $src/demo.c"
check "opens on its hottest line" wait_for "line 22: self 0 s  total 84 ns (42.0%)  in main"
keys Escape
check "Esc: back to Sandwich" wait_for "Self  Function"
keys q
check "and quits" wait_for "EXIT=0"

# Folded stacks name no file: said so, and nothing to list.
run "$TFLAME" tests/data/folded/basic.txt
check "source of folded stacks: opens" wait_for " 1 L"
keys o
check "no file recorded: said so" \
	wait_for "cannot show the source: no source file recorded for this function"
check "and no line to list" wait_for "No line with weight."
keys Escape q
check "and quits" wait_for "EXIT=0"

# 80 x 24, no UTF-8: the gutter fits, the marks are ASCII.
start 80 24 LANG=C LC_ALL=C
run "$TFLAME" "$src/prof.txt"
check "source at 80x24: opens" wait_for "this box   total 84 ns"
keys j o
check "source at 80x24: the ASCII mark" wait_for " 32.0%  32.0%    9*                 x += i * i;"
check "source at 80x24: a caller's mark" wait_for "        42.0%   22+ "
check "source at 80x24: the hints" wait_for "j k move  n N lines with weight"
keys Escape q
check "and quits" wait_for "EXIT=0"

# ------------------------------------------------------------- loading
# A pipe that stays open: the progress line counts bytes, Ctrl-C cancels.
start 100 30
run "(cat data/sample.perf.txt; sleep 30) | $TFLAME -"
check "loading a pipe shows bytes read" wait_for "tflame: standard input: 0 kB read"
check "the progress line says how to cancel" wait_for "(Ctrl-C cancels)"
keys C-c
check "Ctrl-C cancels the load: status 130" wait_for "EXIT=130"
check "and says so" wait_for "tflame: loading cancelled"

# The profile down a pipe: keys come from the terminal.
run "cat data/sample.perf.txt | $TFLAME -"
check "a profile on stdin opens, titled (stdin)" wait_for "(stdin)"
keys j
check "and takes keys from the terminal" wait_details "__libc_start_call_main"
keys q
check "and quits" wait_for "EXIT=0"

# stdin not a terminal, and not the profile: the message, and exit 2.
run "$TFLAME" data/sample.perf.txt "</dev/null"
check "stdin not a terminal: exit 2" wait_for "EXIT=2"
check "stdin not a terminal: says so" wait_for "standard input is not a terminal"

# A terminal type curses does not know: said plainly, exit 2.
run "TERM=nosuchterm $TFLAME data/sample.perf.txt"
check "unknown TERM: exit 2" wait_for "EXIT=2"
check "unknown TERM: names it" wait_for "cannot use terminal type 'nosuchterm'"

# An event that is not in the file: the events there are, and exit 2.
run "$TFLAME" --event=nope data/sample.perf.txt
check "--event names an unknown event: exit 2" wait_for "EXIT=2"
check "and the events there are" wait_for "no event named nope (events: cpu-clock:pppH)"

# --search and --thread: the explorer starts with them.
run "$TFLAME" --search=spin --thread=11195 data/sample.perf.txt
check "--thread: the tab bar names the thread" wait_for "│ 1 thread: compressor 11195 │ 745 ms"
check "--search: the status line says what it matches, at once" \
	wait_for "/spin/  matched: 743 ms (99.7% of all, 99.7% of view)"
keys q
check "and quits" wait_for "EXIT=0"

# Trace events last: a box's time runs to the end of its last event.
run "$TFLAME" tests/data/chrome/span.json
check "a trace opens on its outermost event" wait_details "request"
keys 2
check "Time Order: the 100 ms event lasts 100 ms" \
	wait_for "time       0.000000 – 0.100000 s (0–100%), 100 ms (100.0% of the timeline)"
keys j l l
check "a nested event: its own end" wait_details "tail"
check "and its own 10 ms" wait_for "0.090000 – 0.100000 s (90.0–100%), 10.0 ms (10.0% of the timeline)"
keys q
check "and quits" wait_for "EXIT=0"

# Warnings: counted on the status line, listed once the terminal is back.
run "$TFLAME" tests/data/folded/invalid.txt
check "warnings are counted on the status line" \
	wait_for "1 warning while reading: listed when tflame exits"
keys q
check "and listed after the explorer exits" \
	wait_for "invalid.txt:1: warning: 4 bad lines skipped"

# Nothing too narrow disappears: at 80x24 the fib recursion under
# render_frame fills its rows in Left Heavy, and in Time Order, where each
# of its boxes is a sliver, every row of boxes is still drawn.
start 80 24
run "$TFLAME" data/sample.perf.txt
check "80x24: the sample opens" wait_details "demo"
# boxes: the lines between the tab bar and the rule (of "─" or "-"); in
# Time Order, between the overview of its two lanes and ruler (box_top 5)
# and the rule.
boxes() {
	sed -n "${box_top:-2}"',/──\|-----/p' | sed '$d'
}
# box_rows: lines of boxes holding a box colour (a 256-colour background).
box_rows() {
	T capture-pane -p -e -t tf | boxes | grep -c '48;5;'
}
fib_rows() {
	[ "$(screen | boxes | grep -c 'fib')" -ge 12 ]
}
check "Left Heavy at 80x24: the fib recursion fills its rows" poll fib_rows
keys 2
check "Time Order at 80x24" wait_for "time       0.000000"
box_top=5
# 13 rows: 22 less the details, the rule, the two lanes and the ruler.
all_rows_drawn() {
	rows=$(screen | sed -n 's/.* rows 1-\([0-9]*\) of .*/\1/p')
	[ -n "$rows" ] && [ "$rows" -ge 13 ] && [ "$(box_rows)" -eq "$rows" ]
}
check "Time Order at 80x24: every row of slivers under main is drawn" poll all_rows_drawn
# Eighths: a cell that two boxes share is a block glyph in their two colours.
eighth_edges() {
	screen | boxes | grep -q '[▏▎▍▌▋▊▉]'
}
check "box edges fall on eighths of a cell" poll eighth_edges
keys q
check "and quits" wait_for "EXIT=0"

# In ASCII, whole cells: no block glyphs, and the slivers still drawn.
box_top=2
start 80 24 LANG=C LC_ALL=C
run "$TFLAME" data/sample.perf.txt
check "ASCII at 80x24: the sample opens" wait_for "rows 1-"
check "ASCII Left Heavy: the fib recursion fills its rows" poll fib_rows
keys 2
check "ASCII Time Order" wait_for "time       0.000000"
box_top=5
check "ASCII Time Order: every row of slivers is drawn" poll all_rows_drawn
no_eighths() {
	! screen | grep -q '[▏▎▍▌▋▊▉]'
}
check "ASCII: whole cells, no eighths" no_eighths
keys q
check "and quits" wait_for "EXIT=0"

# A comparison opens on NEW, compared with BASE; a folded file with two
# counts on its after, compared with its before. Wide, so that the tab
# bar keeps the profile whole beside the comparison's legend.
start 140 30
run "$TFLAME" tests/data/diff/base.folded tests/data/diff/new.folded
check "BASE NEW: NEW shown, its first profile of two" wait_for "new.folded │ profile 1/2"
check "BASE NEW: NEW's weight" wait_for "tokenize"
keys q
check "and quits" wait_for "EXIT=0"
run "$TFLAME" tests/data/folded/diff.txt
check "two counts: after shown first" wait_for "after 2/2"
keys q
check "and quits" wait_for "EXIT=0"

# no_row_ends_in TEXT: no line of the screen ends in TEXT (and blanks).
no_row_ends_in() {
	! screen | grep -q -- "$1 *\$"
}

# Two builds of one program at two paths, running at once (perf record
# -g of base/prog and new/prog): Sandwich's module column tells them
# apart by the shortest tail of their paths, not "prog" twice.
run "$TFLAME" tests/data/recorded/two-builds.txt
wait_for " 1 Left Heavy" || bail "tflame did not start on two builds"
keys 3
check "two builds: Sandwich names new/prog" wait_for "new/prog"
check "two builds: and base/prog" wait_for "base/prog"
check "two builds: no module column reads prog alone" no_row_ends_in " prog"
keys q
check "and quits" wait_for "EXIT=0"

# A bad file: the error, and the terminal untouched.
run "$TFLAME" no-such-file.txt
check "a missing file: the error, exit 1" wait_for "EXIT=1"
check "the error names the file" wait_for "no-such-file.txt"

finish
