#!/bin/sh
# Screen tests of how profiles of other tools read: a Node profile's
# anonymous functions, each a row of its own, and its source lines from
# positionTicks. The real binary in tmux, as in screen.sh. Skipped (77)
# when tmux is missing.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tmux.sh"

app=tests/data/chrome/app.cpuprofile

# row_has N TEXT: screen line N holds TEXT.
row_has() {
	screen | sed -n "$1p" | grep -qF -- "$2"
}

# ------------------------------------------------------------ node
start 120 34
run "$TFLAME" --source-dir=tests/data/chrome "$app"
check "node: the profile opens" wait_for " 1 Left Heavy"
keys 3
check "node: Sandwich" wait_for "Function"
check "the module wrapper is a row of its own, with its script" \
	wait_for "(anonymous) app.js:1:1             app.js"
check "so is node's own wrapper" \
	wait_for "(anonymous) run_main_module:1:1    node:internal/main/run_main_module"
# checksum, the heaviest function of app.js by self: S sorts by self.
keys S g
check "sorted by self: checksum first" poll row_has 3 " checksum "
check "the comparator is a row of its own" wait_for "(anonymous) app.js:7:28"
check "two arrows of one line are two rows" wait_for "(anonymous) app.js:26:20"
check "the second arrow" wait_for "(anonymous) app.js:26:70"
keys o
check "o: the source, found from its file: URL" wait_for "Source tests/data/chrome/app.js"
check "the line checksum spent most on, from positionTicks" \
	wait_for " 40.5%  40.5%   14●                         s = (s * 31 + r.k + round) % 1000003;"
check "its other line" wait_for "  3.4%   3.4%   13●                 for (const r of list)"
check "a line of no ticks has no numbers" wait_for "                15          return s;"
check "the cursor line in amounts" \
	wait_for "line 14: self 130 ms (40.5%)  total 130 ms (40.5%)  in checksum"
keys Escape q
check "and quits" wait_for "EXIT=0"

finish
