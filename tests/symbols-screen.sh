#!/bin/sh
# Symbols off the critical path, as a person sees it: the explorer shows
# perf's names at once, resolves in the background ("symbols N%" on the
# status line), and when the symbols land the panes take them with the
# selection and the zoom still on the same function. The profile is perf
# script text of tests/data/symbols/tiny, the committed build of prog.c
# (0x11a4: inner() inlined through middle() into outer()), so nothing is
# compiled. TFLAME_SYMBOLS_DELAY holds the symbols back long enough to act
# first. Skipped (77) without tmux.

TFLAME_WITH_SYMBOLS=1
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tmux.sh"

tiny=$top_srcdir/tests/data/symbols/tiny
case $tiny in
/*) ;;
*) tiny=$PWD/$tiny ;;
esac
prof=$tmpdir/tiny.perf.txt

# sample TIME LEAF-LINE: one sample, leaf first, called from driver and main.
sample() {
	printf 'prog 100 [000] %s: 1000000 cycles:\n\t%s (%s)\n' "$1" "$2" "$tiny"
	printf '\t    11fc driver+0x1c (%s)\n\t    1088 main+0x28 (%s)\n\n' "$tiny" "$tiny"
}
{
	for i in 1 2 3 4 5 6 7 8 9; do sample "1.00000$i" "    11a4 outer+0x14"; done
	for i in 1 2 3 4 5; do sample "2.00000$i" "    11d1 outer+0x41"; done
	for i in 1 2 3; do sample "3.00000$i" "    11a4 [unknown]"; done
} >"$prof"

on_screen() {
	screen | grep -q -- "$1"
}
not_on_screen() {
	! screen | grep -q -- "$1"
}

# --- the first screen comes with perf's names, before any symbol
start 100 30 TFLAME_SYMBOLS_DELAY=4
run "$TFLAME '$prof'"
check "first screen while symbols wait" wait_for " 1 L"
check "the status line shows the symbols phase" wait_for "symbols 0%"
check "perf's names first: no inline frame yet" not_on_screen "inner"
check "an unnamed frame is named by its module" on_screen "\[tiny\]"

# --- select outer() and zoom into it, then let the symbols come
keys j j
check "outer selected" poll sh -c "[ \"\$(tmux -L '$sock' -f /dev/null capture-pane -p -t tf |
	sed -n '/^──/{n;p;q;}' | sed 's/ *\$//')\" = outer ]"
keys Enter
check "zoomed into outer" wait_for "zoom 1: outer"
check "symbols land on their own, and say so" wait_for "symbols done: 4 addresses resolved"
check "the status line no longer shows the phase" wait_gone "symbols 0%"
check "the inline frames came" on_screen "middle"
check "...down to the innermost" on_screen "inner"
check "the selection stayed on outer" test "$(details_name)" = outer
check "the zoom stayed on outer" on_screen "zoom 1: outer"
check "the unnamed frame became outer: it is all the zoom now" \
	on_screen "this box   total 17,000,000 (100% of all, 100% of zoom)"
check "a file:line from DWARF" on_screen "file ./prog.c:38"
keys Escape
check "Esc leaves the zoom as before" wait_gone "zoom 1: outer"
check "...back on outer" test "$(details_name)" = outer
keys q
check "q quits" wait_for "EXIT=0"

# --- q while the symbols run: at once, and nothing is left behind
start 100 30 TFLAME_SYMBOLS_DELAY=30
run "$TFLAME '$prof'"
check "first screen" wait_for "symbols 0%"
keys q
check "q while symbols wait quits at once" wait_for "EXIT=0"

# --- Sandwich keeps its function across the swap, wherever its row goes
start 100 30 TFLAME_SYMBOLS_DELAY=3
run "$TFLAME '$prof'"
check "first screen" wait_for "symbols 0%"
keys 3 j j
check "outer chosen in Sandwich" wait_for "── Callers of outer"
check "...its callees before the symbols: none but itself" not_on_screen "│middle"
check "symbols land in Sandwich too" wait_for "symbols done"
check "the table gained the inline functions" on_screen " inner  "
check "outer is still the function shown" on_screen "── Callers of outer"
check "...now with its inlined callees" on_screen "│middle"
keys q
check "q quits" wait_for "EXIT=0"

# --- P while the symbols run: grouping adds frames to the set the symbols
# job reads, so it waits for them, and comes with them
start 100 30 TFLAME_SYMBOLS_DELAY=3
run "$TFLAME '$prof'"
check "first screen" wait_for "symbols 0%"
keys P
check "P says it waits for the symbols" wait_for "grouping by process once the symbols are in"
check "...and is not on yet" not_on_screen "│ by process"
check "the symbols land grouped by process" wait_for "│ by process"
check "...under the process" on_screen "^prog-?$"
keys q
check "q quits" wait_for "EXIT=0"

# --- o on a box whose frame has its function's line: the hottest line
# first (the declaration has no samples), the declaration on d
start 100 30
run "$TFLAME --source-dir='$top_srcdir/tests/data/symbols' '$prof'"
check "first screen" wait_for "symbols done"
keys j j
check "outer selected" wait_details outer
keys o
check "o: the source of outer" wait_for "prog.c"
check "on its hottest line, not its declaration (38)" \
	wait_for "line 40: self 0  total 12,000,000 (70.6%)  in outer"
check "the hints name the declaration's key" wait_for "d declaration"
keys d
check "d: the declaration" wait_for "line 38: the declaration"
check "the cursor is on it" wait_for "line 38: no samples"
keys d
check "d again: back to the hottest line" wait_for "line 40: the function's hottest line"
keys Escape q
check "q quits" wait_for "EXIT=0"

finish
