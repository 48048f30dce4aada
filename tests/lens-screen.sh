#!/bin/sh
# Screen tests of the transforms: a and a key stack three of them, the
# tab bar shows them as breadcrumbs, u pops one and U applies it again,
# w writes them to tflame.lens, which --lens reads back. The real binary
# in tmux, as in screen.sh. Skipped (77) when tmux is missing.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tmux.sh"

rec="$top_srcdir/tests/data/folded/recursion.txt"
TFLAME_TIMED="$top_srcdir/data/sample.perf.txt"

# The tab bar, the screen's first line.
tab_bar() {
	screen | sed -n 1p
}

# crumbs_are TEXT: the tab bar ends with the breadcrumbs TEXT.
crumbs_are() {
	tab_bar | sed 's/ *$//' | grep -qF -- "│ $1" &&
		[ "$(tab_bar | sed 's/ *$//; s/.*│ //')" = "$1" ]
}

# row N: screen line N without trailing blanks.
row() {
	screen | sed -n "$1p" | sed 's/ *$//'
}

row_is() {
	[ "$(row "$1")" = "$2" ]
}

start 100 24
# In a directory of its own: w writes tflame.lens where tflame runs.
mkdir "$tmpdir/work" || exit 99
run cd "$tmpdir/work" "&&" "$TFLAME" "$rec"
wait_for " 1 Left Heavy" || bail "tflame did not start"
check "no breadcrumbs without transforms" poll crumbs_are "30"
check "main's first callee is parse" poll row_is 3 "parse                                             idle                          gc_collect   ▍eval"

# 1: merge parse (the box below main).
keys j
check "parse selected" wait_details "parse"
keys a
# At 100 columns a word each: every key shows (80 columns: newuser-screen.sh).
check "a lists the transforms by their keys" \
	wait_for "transform: f focus F fn i callers m merge M node d drop c collapse C module r rec R direct"
keys m
check "the first breadcrumb" poll crumbs_are "merge parse"
check "the status line names it" wait_for "merge-function: merge parse  (u undoes)"
check "parse is gone: expr hangs from main" poll row_is 3 "expr                                              idle                          gc_collect   ▍eval"

# 2: collapse expr's recursion.
keys j
check "expr selected" wait_details "expr"
keys a r
check "the second breadcrumb" poll crumbs_are "merge parse > collapse rec expr"
check "one expr, its recursion folded" poll row_is 4 "term                                                                            gc_mark      ▍gc_co…"

# 3: focus on term.
keys j j
check "term selected" wait_details "term"
keys a F
check "three breadcrumbs" poll crumbs_are "merge parse > collapse rec expr > focus term"
check "term is the root" poll row_is 2 "term"
check "and the total is term's" wait_for "│ 15 │"

# Pop one, then apply it again.
keys u
check "u pops the last breadcrumb" poll crumbs_are "merge parse > collapse rec expr"
check "the status line says so" wait_for "undone: merge parse > collapse rec expr"
check "main is the root again" poll row_is 2 "main"
keys U
check "U applies it again" poll crumbs_are "merge parse > collapse rec expr > focus term"
keys u
check "popped again" poll crumbs_are "merge parse > collapse rec expr"

# A path transform needs a box: Sandwich has none to give.
keys 3
check "Sandwich" wait_for "total"
keys a M
check "merge-call-node wants a box" wait_for "merge-call-node takes a box of Left Heavy or Time Order"
keys 1

# Esc after a cancels; an unbound key too.
keys a Escape
check "Esc after a: no transform" wait_for "no transform"
check "the crumbs unchanged" poll crumbs_are "merge parse > collapse rec expr"

# The help names every transform key, from the key table.
keys '?'
wait_for "keys (q, Esc or ? closes this page)" || bail "no help page"
# page_to TEXT: page down the help until TEXT shows (ten pages at most).
page_to() {
	n=0
	while [ $n -lt 10 ]; do
		screen | grep -qF -- "$1" && return 0
		keys NPage
		sleep 0.2
		n=$((n + 1))
	done
	return 1
}
check "the help lists the keys after a" page_to "After a: the transforms"
check "with their letters" page_to "  R                  collapse the function's direct recursion only"
keys q
check "the help closes" wait_gone "After a"

keys w
check "w writes the lens" wait_for "wrote 2 transforms to tflame.lens (tflame --lens=tflame.lens)"
keys q
check "tflame exits" wait_for "EXIT=0"

cat >"$tmpdir/want" <<'EOF'
# tflame lens: one transform a line, KIND:ARG
merge-function:^\Qparse\E$
collapse-recursion:^\Qexpr\E$
EOF
if cmp -s "$tmpdir/want" "$tmpdir/work/tflame.lens"; then
	ok "the lens file holds the two transforms"
else
	not_ok "the lens file holds the two transforms" "$(diff "$tmpdir/want" "$tmpdir/work/tflame.lens")"
fi

# Read back: the same view as the same transforms given on the command line.
"$TFLAME" report --lens="$tmpdir/work/tflame.lens" "$rec" >"$tmpdir/by-file" 2>&1
"$TFLAME" report '--transform=merge-function:^parse$' '--transform=collapse-recursion:^expr$' \
	"$rec" >"$tmpdir/by-options" 2>&1
# The same report but for how the lens line names the regexes.
grep -v '^lens ' "$tmpdir/by-file" >"$tmpdir/by-file.rest"
grep -v '^lens ' "$tmpdir/by-options" >"$tmpdir/by-options.rest"
if cmp -s "$tmpdir/by-file.rest" "$tmpdir/by-options.rest" &&
	grep -q "^weight    30" "$tmpdir/by-file" &&
	grep -qx "lens      merge parse > collapse rec expr" "$tmpdir/by-file"; then
	ok "--lens replays it"
else
	not_ok "--lens replays it" "$(diff "$tmpdir/by-file" "$tmpdir/by-options")"
fi

# --time: the range in the tab bar, before the transforms; u drops it last.
run "$TFLAME" --time=0.5,90% --transform=drop-function:idle "$TFLAME_TIMED"
check "--time in the tab bar" poll crumbs_are "time 0.500–1.350 s > drop idle"
keys u
check "u: the transform first" poll crumbs_are "time 0.500–1.350 s"
keys u
check "u again: the whole time range" wait_for "the whole time range again"
check "no breadcrumbs left" wait_gone "time 0.500"
keys q
check "tflame exits after --time" wait_for "EXIT=0"

# r in Time Order: the range on screen (zoomed in 4x at the start).
run "$TFLAME" "$TFLAME_TIMED"
wait_for " 1 Left Heavy" || bail "tflame did not start on the perf profile"
keys 2 + +
keys r
check "r takes the range on screen" poll crumbs_are "time 0.000–0.375 s"
check "the status line says what counts" \
	wait_for "counting only 0.000–0.375 s in Left Heavy, Sandwich and the search (u drops it)"
check "the total is the range's" wait_for "│ 389 ms │"
keys 1 u
check "u drops it" wait_for "the whole time range again"
check "the whole total again" wait_for "│ 1.51 s"
keys p
check "p weighs by sample counts" wait_for "│ 1.51 k samples"
check "and says so" wait_for "weighing by sample counts"
keys p
check "p again: by period" wait_for "│ 1.51 s"
keys q
check "tflame exits after r" wait_for "EXIT=0"

# And the explorer starts with it, breadcrumbs shown.
run "$TFLAME" --lens="$tmpdir/work/tflame.lens" "$rec"
check "--lens in the explorer: its breadcrumbs" poll crumbs_are "merge parse > collapse rec expr"
keys q
check "tflame exits again" wait_for "EXIT=0"

finish
