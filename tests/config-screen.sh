#!/bin/sh
# The config file in the explorer: a rebound key works, the help page,
# the tabs and the status line show the keys as bound, a bad line's
# warning shows at the start and on exit, and the file --dump-config
# writes reads back with no warning and the same help page. Skipped (77)
# when tmux is missing.

. "$top_srcdir/tests/lib.sh"

# ------------------------------------------------------ --dump-config
"$TFLAME" --dump-config >"$tmpdir/dumped" 2>"$tmpdir/err"
status=$?
if [ "$status" -eq 0 ] && [ ! -s "$tmpdir/err" ] &&
	grep -qx "bind generic q quit" "$tmpdir/dumped" &&
	grep -qx "bind picker Space picker-tick" "$tmpdir/dumped" &&
	grep -qx "set orientation = icicle" "$tmpdir/dumped"; then
	ok "--dump-config: bindings per keymap and settings, exit 0"
else
	not_ok "--dump-config: bindings per keymap and settings, exit 0" "exit $status" \
		"$(head -5 "$tmpdir/dumped")" "$(cat "$tmpdir/err")"
fi
# Every request in the key table has a line (none forgotten by the dump).
missing=$(grep -c '^bind ' "$tmpdir/dumped")
[ "$missing" -gt 60 ] && ok "--dump-config binds $missing keys" ||
	not_ok "--dump-config binds $missing keys"

. "$top_srcdir/tests/tmux.sh"

mkdir -p "$tmpdir/xdg/tflame" || exit 99
cat >"$tmpdir/xdg/tflame/config" <<'EOF2'
# rebind help to x, and take ? away
bind generic x help
bind generic ? none
bind generic j teleport
bind left-heavy 9 time-order
bind picker F2 picker-apply
set orientation = flame
EOF2

start 100 120 XDG_CONFIG_HOME="$tmpdir/xdg"
run "$TFLAME" data/sample.perf.txt
check "a bad line's warning shows at the start" \
	wait_for "config:4: unknown action 'teleport' (tflame --dump-"
check "the good lines apply: the panes start flipped" poll sh -c \
	"tmux -L '$sock' -f /dev/null capture-pane -p -t tf | sed -n '/^──/{x;p;q;};h' | grep -q '^demo'"
check "the tab shows the pane's rebound key" wait_for " 9 Time Order "
keys l
check "the hints name the rebound key" wait_for "x help  h j k l move"
keys '?'
check "an unbound key says which key shows the help" wait_for "no action on ?: x lists the keys"
keys x
check "the rebound key opens the help" wait_for "keys (q, Esc or x closes this page)"
check "the help page shows the pane's rebound key" wait_for "  9 2    "
check "and the new key of the help" wait_for "  x F1   "
keys q 9
check "the pane's key switches panes" wait_for "time       0.000000"
keys 1 t
check "the picker opens" wait_for "2 of 2 ticked"
check "its hints put the user's key first" wait_for "F2 apply"
keys F2
check "and the key applies" wait_for "showing all threads"
keys q
check "the explorer quits" wait_for "EXIT=0"
check "the warning is listed on exit" \
	wait_for "tflame: $tmpdir/xdg/tflame/config:4: unknown action"

# The dumped defaults read back: no warning, and the same help page.
start 100 200 TFLAME_CONFIG="$tmpdir/dumped"
run "$TFLAME" data/sample.perf.txt
check "the dumped file reads back with no warning" wait_for "? lists the keys, q quits"
keys '?'
wait_for "Reading the panes" || bail "no help page"
screen >"$tmpdir/help-dumped"
keys q q
wait_for "EXIT=0" || bail "tflame did not quit"
start 100 200 TFLAME_CONFIG=
run "$TFLAME" data/sample.perf.txt
wait_for "? lists the keys, q quits" || bail "tflame did not start"
keys '?'
wait_for "Reading the panes" || bail "no help page"
screen >"$tmpdir/help-default"
keys q q
if diff "$tmpdir/help-default" "$tmpdir/help-dumped" >"$tmpdir/diff"; then
	ok "the dumped config gives the default help page"
else
	not_ok "the dumped config gives the default help page" "$(head -20 "$tmpdir/diff")"
fi

finish
