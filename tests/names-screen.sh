#!/bin/sh
# Screen tests of how profiles of other tools read: a Node profile's
# anonymous functions, each a row of its own, and its source lines from
# positionTicks; a cProfile's functions named as pstats knows them with
# their file as module, no sample counts where there are no samples, and
# Time Order's ruler in the profile's unit. The real binary in tmux, as
# in screen.sh. Skipped (77) when tmux is missing.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tmux.sh"

app=tests/data/chrome/app.cpuprofile

# row_has N TEXT: screen line N holds TEXT.
row_has() {
	screen | sed -n "$1p" | grep -qF -- "$2"
}

# named_in NAME MODULE: a table row of function NAME in module MODULE
# (the columns as wide as the names on screen need).
named_in() {
	screen | grep -F -- "$1" | grep -qE -- "[ ]{2,}$2\$"
}

# ------------------------------------------------------------ node
start 120 34
run "$TFLAME" --source-dir=tests/data/chrome "$app"
check "node: the profile opens" wait_for " 1 Left Heavy"
keys 3
check "node: Sandwich" wait_for "Function"
check "the module wrapper is a row of its own, with its script" \
	poll named_in "(anonymous) app.js:1:1" "app.js"
check "so is node's own wrapper" \
	poll named_in "(anonymous) run_main_module:1:1" "node:internal/main/run_main_module"
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

# ------------------------------------------------------------ cProfile
start 120 30
run "$TFLAME" tests/data/cprofile/jsonwork.prof
check "cProfile: the profile opens" wait_for " 1 Left Heavy"
check "the tab bar: the file, the profile and its time" \
	poll row_has 1 "│ jsonwork.prof │ time │ all threads │ 93.3 ms"
keys 3
check "cProfile: Sandwich" wait_for "Function"
check "json's loads by name, file and line, the file as module" \
	poll named_in "loads (json/__init__.py:299)" "json/__init__.py"
keys j j j j j j j j j
check "and dumps, told apart at 120 columns" \
	poll named_in "dumps (json/__init__.py:183)" "json/__init__.py"
check "the details name its module" wait_for "module json/__init__.py"
check "the script's own decode beside json's" wait_for "decode (jsonwork.py:16)"
keys p
check "p: no samples to count, said so" \
	wait_for "no samples to count: a cProfile records weights, not samples"
check "the tab bar still weighs time" poll row_has 1 "│ time │ all threads │ 93.3 ms"
keys 2
check "Time Order: the ruler in the profile's unit" \
	poll row_has 2 "0            10 ms        20 ms"
check "and says it is cumulative weight" \
	wait_for "none in this profile: x is cumulative weight, samples in file order"
keys q
check "and quits" wait_for "EXIT=0"

# A perf profile has samples: p counts them, and the tab bar says so.
run "$TFLAME" tests/data/recorded/pid-tid-period.txt
check "perf: the profile opens" wait_for " 1 Left Heavy"
keys p
check "p weighs a perf profile by sample counts" wait_for "weighing by sample counts"
keys q
check "and quits" wait_for "EXIT=0"

finish
