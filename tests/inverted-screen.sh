#!/bin/sh
# Screen tests of Left Heavy inverted (i, --inverted): the tab, the first
# row of the frames that ran, zoom and Esc in it, search and n, each face
# keeping its own selection across toggles, i from another pane, the tab's
# initials when narrow, and a thread filter and symbols keeping the
# selected call path. The real binary in tmux, as in screen.sh. Skipped
# (77) when tmux is missing.
#
# tests/data/folded/inverted.txt, inverted: lex 40 (parse 30, expr 10),
# alloc 20 (eval 15, main 5), expr 20 (expr 20: eval, main), main 5.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tmux.sh"

file=tests/data/folded/inverted.txt

# line_starts N TEXT: line N of the screen starts with TEXT.
line_starts() {
	case $(screen | sed -n "$1p") in
	"$2"*) return 0 ;;
	esac
	return 1
}

# line_is N TEXT: line N of the screen is TEXT, but for trailing blanks.
line_is() {
	[ "$(screen | sed -n "$1p" | sed 's/ *$//')" = "$2" ]
}

# box_line_without_self: the details' "this box" line has no self.
box_line_without_self() {
	line=$(screen | grep '^this box   total')
	[ -n "$line" ] && case $line in *self*) false ;; esac
}

# ----------------------------------------------------- i toggles, 100x30
start 100 30
run "$TFLAME" "$file"
wait_for " 1 Left Heavy" || bail "tflame did not start"
check "Left Heavy: the outermost frame on row 0" wait_details "main"
check "the tab does not say inverted" poll line_starts 1 " 1 Left Heavy  2 Time Order"
keys j
check "its callee selected" wait_details "parse"
keys i
check "i: the tab says inverted" poll line_starts 1 " 1 Left Heavy inverted  2 Time Order"
check "i: the status line says what the rows are" \
	wait_for "inverted: the frames that ran on row 0, their callers below"
check "row 0: the heaviest frame that ran, first" poll line_starts 2 "lex "
check "then its callers" poll line_starts 3 "parse "
check "the heaviest frame that ran is selected" wait_details "lex"
check "an inverted box's weight" wait_for "this box   total 40 (47.1% of all)"
check "an inverted box has no self of its own" poll box_line_without_self
keys l
check "l: the next frame that ran" wait_details "alloc"
keys l
check "l: the recursive one" wait_details "expr"
keys j
check "j: its caller, itself" wait_for "this box   total 20 (23.5% of all)"
keys Enter
check "Enter zooms into the caller" wait_for "zoom 1: expr (Esc: back)"
check "zoomed: the path from the leaf across the width" poll line_is 2 "expr"
check "zoomed: then the recursion" poll line_is 3 "expr"
check "zoomed: then eval" poll line_is 4 "eval"
check "zoomed: then main" poll line_is 5 "main"
keys Escape
check "Esc leaves the zoom" wait_gone "zoom 1: expr"
check "Esc: the row of the frames that ran again" poll line_starts 2 "lex "

keys i
check "i again: Left Heavy" poll line_starts 1 " 1 Left Heavy  2 Time Order"
check "i again: its selection kept" wait_details "parse"
check "i again: the outermost frame on row 0" poll line_is 2 "main"
keys i
check "and inverted: its selection kept" wait_details "expr"
check "and inverted: its selection's caller's weight" wait_for "this box   total 20 (23.5% of all)"

keys / l e x Enter
check "a search in the inverted tree: the samples once" \
	wait_for "matched: 40 (47.1% of all"
keys n
check "n: the match, a frame that ran" wait_details "lex"
check "n: one match" wait_for "match 1 of 1"
keys Escape

keys Enter
wait_for "zoom 1: lex" || bail "Enter did not zoom"
keys x
wait_for "export to:" || bail "x did not prompt"
keys C-u
keys -l "$tmpdir/inverted.folded"
keys Enter
check "x: the inverted stacks, zoom and all" \
	wait_for "wrote folded of the zoomed box (2 stacks) to"
"$TFLAME" export --to=folded --inverted --zoom=lex "$top_srcdir/$file" >"$tmpdir/cli.folded"
if [ -s "$tmpdir/cli.folded" ] && cmp -s "$tmpdir/inverted.folded" "$tmpdir/cli.folded"; then
	ok "x: the file is export --inverted --zoom's"
else
	not_ok "x: the file is export --inverted --zoom's" "$(cat "$tmpdir/inverted.folded" 2>&1)"
fi
keys Escape

keys 2
check "Time Order" wait_for " 2 Time Order "
keys i
check "i in another pane: back to Left Heavy, not inverted" \
	poll line_starts 1 " 1 Left Heavy  2 Time Order"
check "i in another pane: the outermost frame on row 0" poll line_is 2 "main"
keys q
check "q quits" wait_for "EXIT=0"

# ---------------------------------------------- --inverted, narrow 60x20
start 60 20
run "$TFLAME" --inverted "$file"
wait_for " 1 LH" || bail "tflame --inverted did not start"
check "--inverted: narrow, the tab's initials say it" poll line_starts 1 " 1 LHi  2 TO  3 SW"
check "--inverted: the frames that ran on row 0" poll line_starts 2 "lex "
keys G
check "G: down the heaviest callers to the outermost" wait_details "main"
keys g
check "g: up to the frame that ran" wait_details "lex"
keys q
check "q quits" wait_for "EXIT=0"

# -------------------------------------- a thread filter keeps the path
# tests/data/recorded/multi-process.txt: [gzip] ran 374 ms, 212 ms of it
# called from gzip (the process frame), all of it in thread gzip 4583.
start 100 30
run "$TFLAME" --inverted tests/data/recorded/multi-process.txt
wait_for " 1 Left Heavy inverted" || bail "tflame --inverted did not start"
keys j
check "the caller of the heaviest frame that ran" wait_for "this box   total 212 ms (30.0% of all)"
keys t
wait_for "gzip" || bail "the picker did not open"
keys -l gzip
keys C-o Enter
check "one thread: the tree is built again" wait_for "1 thread: gzip 4583"
check "the same call path stays selected" wait_for "this box   total 212 ms (56.8% of all)"
keys t
wait_for "gzip" || bail "the picker did not open"
keys C-a Enter
check "all threads again, the same path" wait_for "this box   total 212 ms (30.0% of all)"
keys k l
check "a frame that ran in other threads only" wait_details "_PyEval_EvalFrameDefault"
keys t
wait_for "gzip" || bail "the picker did not open"
keys -l gzip
keys C-o Enter
check "a path the new tree lacks: the heaviest frame that ran" wait_details "[gzip]"
keys q
check "q quits" wait_for "EXIT=0"

# ------------------------------------------------- symbols keep the path
# As in symbols-screen.sh: perf script text of tests/data/symbols/tiny,
# whose outer() holds inner() inlined through middle(); the symbols held
# back long enough to select first. The binary itself, not the wrapper
# that turns symbols off.
tiny=$top_srcdir/tests/data/symbols/tiny
case $tiny in
/*) ;;
*) tiny=$PWD/$tiny ;;
esac
sample() {
	printf 'prog 100 [000] %s: 1000000 cycles:\n\t%s (%s)\n' "$1" "$2" "$tiny"
	printf '\t    11fc driver+0x1c (%s)\n\t    1088 main+0x28 (%s)\n\n' "$tiny" "$tiny"
}
{
	for i in 1 2 3 4 5 6 7 8 9; do sample "1.00000$i" "    11a4 outer+0x14"; done
	for i in 1 2 3 4 5; do sample "2.00000$i" "    11d1 outer+0x41"; done
} >"$tmpdir/tiny.perf.txt"
start 100 30 TFLAME_SYMBOLS_DELAY=4
run "'$tflame_binary' --inverted '$tmpdir/tiny.perf.txt'"
check "perf's names first" wait_for "symbols 0%"
check "row 0: outer, where perf's names stop" poll line_starts 2 "outer"
keys j
check "its caller selected" wait_details "driver"
check "symbols land" wait_for "symbols done: 4 addresses resolved"
check "the inline frames came, on row 0" poll line_starts 2 "inner"
check "the selection stayed on driver, the caller of the same path" wait_details "driver"
check "still inverted" poll line_starts 1 " 1 Left Heavy inverted"
keys q
check "q quits" wait_for "EXIT=0"
finish
