#!/bin/sh
# Screen tests of the explorer comparing two profiles: the boxes' colours
# by their change (256 colours, 8 colours and none), the legend in the
# tab bar, the status line's hints, the details' base, new and delta,
# the normalisation (D), the swap of the sides (b), Sandwich's columns,
# its sort by the change and its callers and callees, and Time Order's
# note. The real binary in tmux, as in screen.sh, read with
# capture-pane -e for the colours.
# Skipped (77) when tmux is missing.
#
# tests/data/diff: BASE 130 samples, NEW 185. Per box, BASE -> NEW:
# main 130 -> 185, parse 50 -> 100, tokenize 40 -> 90, render 50 -> 35,
# layout 30 -> 30, paint 20 -> 5, compress (new) 0 -> 25, fib 15 -> 25,
# legacy_cache 15 -> 0 (gone). Left Heavy colours a box by the change of
# its self weight, as flamegraph.pl does: tokenize 40 -> 90 (+50, the
# largest), paint 20 -> 5, fib under fib 0 -> 20, the first fib 3 -> 5;
# main, parse and render have the same self (0, 10, 0) on both sides.
# Normalised, BASE scaled to 185 line by line (difffolded.pl -n):
# tokenize 56 -> 90 (+34) is still the largest, paint 28 -> 5 and
# layout 42 -> 30 shrank.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tmux.sh"

base=tests/data/diff/base.folded
new=tests/data/diff/new.folded
# difffolded's two counts per line open in diff mode by themselves.
pair=$tmpdir/pair.folded
"$TFLAME" collapse --diff "$top_srcdir/$base" "$top_srcdir/$new" >"$pair" ||
	bail "collapse --diff failed"

esc=$(printf '\033')

# The colours the boxes take (palette.c): grew 224 217 210 203 196 (pale
# to strong), shrank 189 153 111 75 33, about the same 250.

# box_bg NAME: the 256-colour background of the first box labelled NAME
# (the SGR 48;5;N last set before the label), the block glyphs of shared
# cells left out.
box_bg() {
	T capture-pane -p -e -t tf | LC_ALL=C sed 's/\xe2\x96[\x89-\x8f]//g' |
		LC_ALL=C sed -n "s/.*\x1b\[48;5;\([0-9]*\)m\(\x1b\[[0-9;]*m\)*$1.*/\1/p" |
		head -1
}

# bg_is NAME N: the box labelled NAME has background N.
bg_is() {
	[ "$(box_bg "$1")" = "$2" ]
}

# last_bg_is NAME N: the last box labelled NAME (the deepest) has background N.
last_bg_is() {
	[ "$(T capture-pane -p -e -t tf | LC_ALL=C sed 's/\xe2\x96[\x89-\x8f]//g' |
		LC_ALL=C sed -n "s/.*\x1b\[48;5;\([0-9]*\)m\(\x1b\[[0-9;]*m\)*$1.*/\1/p" |
		tail -1)" = "$2" ]
}

# bg8_is NAME N: with 8 colours, the box labelled NAME has background SGR
# 40 + N (41 red, 44 blue).
bg8_is() {
	T capture-pane -p -e -t tf | LC_ALL=C sed 's/\xe2\x96[\x89-\x8f]//g' |
		LC_ALL=C grep -q "$esc\[$2m\($esc\[[0-9;]*m\)*$1"
}

# colored_cell TEXT COLOUR: TEXT is drawn in the 256-colour foreground COLOUR.
colored_cell() {
	T capture-pane -p -e -t tf | LC_ALL=C grep -q "38;5;$2m\($esc\[[0-9;]*m\)*$1"
}

# row_has NAME TEXT: the table's row of NAME holds TEXT.
row_has() {
	screen | grep -E " $1 *\$" | grep -qF -- "$2"
}

# first_row NAME: the table's first row is NAME's.
first_row() {
	screen | sed -n 3p | grep -qE " $1 *\$"
}

on_screen() {
	screen | grep -qF -- "$1"
}

not_on_screen() {
	! screen | grep -qF -- "$1"
}

# ------------------------------------ tflame BASE NEW, 256 colours, 120x30
start 120 30
run "$TFLAME" "$base" "$new"
wait_for " 1 Left Heavy" || bail "tflame did not start"
check "the legend: raw weights, the file NEW is compared with, the colours" \
	wait_for "diff raw vs base.folded: red grew, blue shrank"
check "NEW is shown: its total" wait_for "│ 185 │"
check "a grown box is the strongest red" poll bg_is tokenize 196
check "a caller whose own weight did not change is grey, though it grew" \
	poll bg_is parse 250
check "a box whose own weight grew less is paler" poll last_bg_is fib 217
check "a shrunk box is blue" poll bg_is "p…" 153
check "an unchanged box is grey" poll bg_is layout 250
check "a wholly new box is the strongest red" poll bg_is compress 196
check "a box gone in NEW is not there" not_on_screen legacy_cache
check "the details: the box's base, new and change" \
	wait_for "change     box      base 130 +55 (+42.3%)   self base 0 unchanged"
keys j
check "j: parse" wait_details parse
check "the status line hints at the comparison's keys" \
	wait_for "D normalise  b swap sides"
check "the details: the function's change, total and self" \
	wait_for "function base 50 +50 (+100.0%)   self base 10 unchanged"
check "the change in the colour of a growth" colored_cell "+50 (+100.0%)" 203
keys d
check "d: the change on the details page too" wait_for "change     box      base 50 +50 (+100.0%)"
keys q

keys D
check "D: normalised, in the legend" wait_for "diff normalised vs base.folded"
check "D: said on the status line" wait_for "normalised: the base scaled to the total shown"
check "normalised: paint shrank more" poll bg_is "p…" 75
check "normalised: layout's share shrank" poll bg_is layout 153
check "normalised: the base scaled in the details" wait_for "function base 70 +30 (+42.9%)"
keys D
check "D again: raw" wait_for "diff raw vs base.folded"
check "raw again: layout unchanged" poll bg_is layout 250

keys b
check "b: the base shown, compared with the new profile" \
	wait_for "swapped: the base shown, compared with the new profile"
check "b: the legend names the other file" wait_for "diff raw vs new.folded"
check "b: the base's total" wait_for "│ 130 │"
check "b: the box gone in NEW shows, as wholly new on this side" \
	poll bg_is legacy_cache 196
check "b: the box only NEW has is gone" not_on_screen compress
check "b: tokenize, bigger in NEW, is the strongest blue now" poll bg_is tokenize 33
keys b
check "b again: NEW shown" wait_for "diff raw vs base.folded"
check "b again: compress is back, new" poll bg_is compress 196
check "b again: legacy_cache gone again" not_on_screen legacy_cache

keys i
check "inverted: coloured too, a new frame" poll bg_is deflate 196
check "inverted: a frame that ran less, paint (cut short)" poll bg_is "pa…" 153
check "inverted: one that ran as much" poll bg_is layout 250
keys i

keys 2
check "Time Order: the legend says its colours are plain" \
	wait_for "diff raw vs base.folded: plain colours here"

keys 3
check "Sandwich: base, new and change columns" wait_for "Base    Total▼     ΔTotal       Δ%"
check "Sandwich: self's too" wait_for "BaseSelf      Self      ΔSelf  Function"
check "Sandwich: a new one says so" poll row_has deflate "new"
check "Sandwich: the status line hints at the sorts by the change" \
	wait_for "C V sort by change  D normalise"
check "Sandwich: a change in the colour of a growth" colored_cell "+50" 203
check "Sandwich: and of a shrink" colored_cell "-15" 75
keys C
check "C: sorted by the change of total" \
	wait_for "sorted by the change of total, the most grown first"
check "C: the arrow on ΔTotal" wait_for "ΔTotal▼"
check "C: the most grown first" poll first_row main
keys C
check "C again: the most shrunk first" wait_for "the most shrunk first"
keys g
check "C again: a function that lost 15 heads the table" \
	poll first_row "(render|paint|legacy_cache|lookup)"
check "Sandwich: a function gone in NEW has a row" poll row_has lookup "gone"
check "Sandwich: unchanged, 0%" poll row_has layout " 0% "
keys V
check "V: sorted by the change of self" wait_for "sorted by the change of self"
keys T g
check "T g: back to main" poll first_row main
keys j d
check "d on a row: the function's change, base and new" \
	wait_for "change: total 50 → 100 +50 (+100.0%)   self 10 → 10 unchanged"
keys q k
keys Tab Tab
check "the callees coloured: tokenize grew" poll bg_is tokenize 196
check "the callees coloured: layout the same" poll bg_is layout 250
keys q
check "q quits" wait_for "EXIT=0"

# ------------------------------------- a two-count folded file, 80x24
start 80 24
run "$TFLAME" "$pair"
wait_for "1 LH" || bail "tflame did not start at 80x24"
check "two counts: after shown, compared with before, in the legend at 80 columns" \
	wait_for "diff raw vs before"
check "two counts: a grown box is red" poll bg_is tokenize 196
keys 3
check "80 columns: Sandwich keeps the change of total" wait_for "ΔTotal"
check "80 columns: Sandwich's details give the change, on one line" \
	wait_for "change     total base 130 +55 (+42.3%)   self base 0 unchanged"
keys q
check "q quits at 80x24" wait_for "EXIT=0"

# ------------------------------------------------------- 8 colours
start 100 24 TERM=xterm
run "$TFLAME" "$pair"
wait_for " 1 Left Heavy" || bail "tflame did not start with 8 colours"
check "8 colours: a strong growth is red" poll bg8_is tokenize 41
check "8 colours: a weak growth is magenta" poll bg8_is fib 45
check "8 colours: a weak shrink is cyan" poll bg8_is "p…" 46
check "8 colours: unchanged is white" poll bg8_is layout 47
keys q
check "q quits with 8 colours" wait_for "EXIT=0"

# ------------------------------------------------------- no colour
start 130 24 NO_COLOR=1
run "$TFLAME" "$pair"
wait_for " 1 Left Heavy" || bail "tflame did not start without colour"
check "no colour: the legend gives the signs" wait_for ": + grew, - shrank, = same"
check "no colour: + on a box that grew" wait_for "+tokenize"
check "no colour: - on a box that shrank" wait_for "-p…"
check "no colour: = on one about the same" wait_for "=layout"
keys q
check "q quits without colour" wait_for "EXIT=0"

# one_row_of NAME TEXT: one row of the screen names NAME, and it holds TEXT.
one_row_of() {
	[ "$(screen | grep -c " $1 ")" -eq 1 ] && screen | grep " $1 " | grep -qF -- "$2"
}

# ------------------------------- two builds at two paths (perf record -g)
# tests/data/diff/build-{base,new}.perf.txt: one program built in base/
# and new/; their frames share no module, so they match by name alone,
# which the tab bar says; Sandwich's parse is one row, 103 ms -> 196 ms.
start 120 30
run "$TFLAME" tests/data/diff/build-base.perf.txt tests/data/diff/build-new.perf.txt
wait_for " 1 Left Heavy" || bail "tflame did not start on two builds"
check "two builds: the tab bar says they match by name" \
	wait_for "diff raw vs build-base.perf.txt by name: red"
keys 3
check "two builds: Sandwich has parse once, base and new" wait_for "103 ms"
check "two builds: one row of parse, with both sides" one_row_of parse "103 ms"
keys q
check "q quits on two builds" wait_for "EXIT=0"

# ---------------------------------------------------- not comparing
start 100 24
run "$TFLAME" "$new"
wait_for " 1 Left Heavy" || bail "tflame did not start on one file"
check "one profile: no legend" not_on_screen "diff raw"
keys j
check "one profile: no hint at the comparison's keys" not_on_screen "swap sides"
keys D
check "D on one profile says how to compare" wait_for "not comparing two profiles"
keys 3 C
check "C on one profile: nothing to sort by" wait_for "no change to sort by"
keys q
check "q quits on one file" wait_for "EXIT=0"
finish
