#!/bin/sh
# Screen tests of sharing from the explorer: y and Y put the selected
# frame's name and its stack on the clipboard through OSC 52, which tmux
# (set-clipboard on) keeps in its paste buffer; with set-clipboard off
# the text goes to a file and the status line says where; x writes the
# lens, the zoom included, to the file and format asked. The real binary
# in tmux, on a server of its own. Skipped (77) when tmux is missing.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tmux.sh"
cd "$top_srcdir" || exit 99

# Servers of this test's own: tmux -L export-PID-N, a new one per window
# as tmux.sh does, so that a server being killed is never the next one.
T() {
	tmux -L "export-$$-$nr_windows" -f /dev/null "$@"
}

folded=tests/data/folded/basic.txt

# line_matches N REGEX: screen line N matches REGEX.
line_matches() {
	screen | sed -n "$1p" | grep -Eq -- "$2"
}

# line_matches_anywhere REGEX: some screen line matches REGEX.
line_matches_anywhere() {
	screen | grep -Eq -- "$1"
}

# The TMUX that tmux gives its panes (env -i in start() drops it), so that
# tflame asks this server about set-clipboard, not terminfo.
tmux_env() {
	T display-message -p '#{socket_path},#{pid},0'
}

# ------------------------------------------------ y and Y through OSC 52
start 120 30 TFLAME_CONFIG=
T set-option -g set-clipboard on
run "TMUX='$(tmux_env)' $TFLAME $folded"
wait_for " 1 L" || bail "tflame did not start"
# The first box is the heaviest root (main); j goes down to its heaviest
# callee, run; j again to Foo::bar, l to its neighbour, compute.
keys j j l
keys y
check "y: the status line says the name went to the clipboard" \
	wait_for "copied compute to the clipboard"
if [ "$(T show-buffer 2>/dev/null)" = "compute" ]; then
	ok "y: tmux's buffer holds the frame's name (OSC 52)"
else
	not_ok "y: tmux's buffer holds the frame's name (OSC 52)" \
		"buffer: $(T show-buffer 2>&1 | head -3)"
fi
keys Y
check "Y: the status line counts the frames" \
	wait_for "copied the stack of 3 frames to the clipboard"
printf 'main\nrun\ncompute\n' >"$tmpdir/stack.expected"
T show-buffer >"$tmpdir/stack.actual" 2>&1
# tmux keeps the buffer as sent; a final newline may or may not be there.
printf '\n' >>"$tmpdir/stack.actual"
if [ "$(cat "$tmpdir/stack.actual")" = "$(cat "$tmpdir/stack.expected")" ]; then
	ok "Y: tmux's buffer holds the stack, root first, a frame a line"
else
	not_ok "Y: tmux's buffer holds the stack, root first, a frame a line" \
		"$(cat "$tmpdir/stack.actual")"
fi

# In Sandwich's table, y copies the function of the row: the first, main.
keys 3
wait_for "Function" || bail "Sandwich did not open"
keys y
check "y in Sandwich's table: the row's function" \
	wait_for "copied main to the clipboard"
if [ "$(T show-buffer 2>/dev/null)" = "main" ]; then
	ok "y in Sandwich's table: tmux's buffer holds the function's name"
else
	not_ok "y in Sandwich's table: tmux's buffer holds the function's name" \
		"buffer: $(T show-buffer 2>&1 | head -3)"
fi
keys 1
wait_for " 1 L" || bail "Left Heavy did not come back"

# ------------------------------------------------------------------- x
keys Enter
wait_for "zoom" || bail "Enter did not zoom"
keys x
check "x: the prompt offers the profile's name as SVG" wait_for "export to: basic.svg"
keys Tab
check "Tab: the next format" wait_for "export to: basic.folded"
keys C-u
keys -l "$tmpdir/zoomed.folded"
keys Enter
check "Enter: written, zoom and all" \
	wait_for "wrote folded of the zoomed box (1 stack) to"
"$TFLAME" export --to=folded --zoom="main;run;compute" "$folded" >"$tmpdir/cli.folded"
if cmp -s "$tmpdir/zoomed.folded" "$tmpdir/cli.folded"; then
	ok "x: the file is export --zoom's"
else
	not_ok "x: the file is export --zoom's" "$(cat "$tmpdir/zoomed.folded" 2>&1)"
fi
keys x
check "x again: the last name" wait_for "export to: $tmpdir/zoomed.folded"
# The file exists: Enter asks first, Enter again overwrites.
echo "kept" >"$tmpdir/zoomed.folded"
keys Enter
check "x: an existing file is not overwritten at once" \
	wait_for "exists: Enter overwrites, Esc keeps it"
if [ "$(cat "$tmpdir/zoomed.folded")" = kept ]; then
	ok "x: the existing file is untouched while it asks"
else
	not_ok "x: the existing file is untouched while it asks"
fi
# An edit is a new name: asked again.
keys BSpace
keys -l d
keys Enter
check "x: after an edit, asked again" wait_for "exists: Enter overwrites, Esc keeps it"
keys Enter
check "x: Enter again overwrites" wait_for "wrote folded of the zoomed box (1 stack) to"
if cmp -s "$tmpdir/zoomed.folded" "$tmpdir/cli.folded"; then
	ok "x: the file was overwritten"
else
	not_ok "x: the file was overwritten" "$(cat "$tmpdir/zoomed.folded" 2>&1)"
fi
keys x
wait_for "export to: $tmpdir/zoomed.folded" || bail "x did not open the prompt"
keys C-u
keys -l "/nonexistent-dir/x.svg"
keys Enter
check "x: a file that cannot be written says why, in the prompt" \
	wait_for "cannot write: No such file or directory"
keys Escape
keys q
wait_for "EXIT=0" || bail "tflame did not quit"

# ------------------------------- speedscope read back: its threads, picked
# A profile per thread (export --to=speedscope) opens as one profile of
# those threads: Left Heavy holds them all, the picker picks among them
# with their comm and tid.
"$TFLAME" export --to=speedscope tests/data/recorded/threads.txt.gz -o "$tmpdir/threads.json" \
	2>/dev/null || bail "export --to=speedscope failed"
start 120 30 TFLAME_CONFIG=
run "$TFLAME $tmpdir/threads.json"
wait_for " 1 L" || bail "tflame did not start"
check "speedscope read back: every thread's weight in Left Heavy" \
	poll line_matches 1 '│ 422 ms'
keys t
check "t: the picker lists the 4 threads" wait_for "4 of 4 ticked"
check "each with its comm and tid" poll line_matches_anywhere 'sorter .*23930'
keys -l sorter
keys C-o
keys Enter
check "one thread picked by name" wait_for "showing 1 thread: sorter 23930"
keys q
wait_for "EXIT=0" || bail "tflame did not quit"

# ------------------------------------------- no OSC 52: a file, and where
start 120 30 TFLAME_CONFIG= TMPDIR="$tmpdir"
T set-option -g set-clipboard off
run "TMUX='$(tmux_env)' $TFLAME $folded"
wait_for " 1 L" || bail "tflame did not start"
keys j
keys y
check "y without OSC 52: the status line names the file" \
	wait_for "copied run to $tmpdir/tflame-clipboard-"
if [ "$(cat "$tmpdir"/tflame-clipboard-*.txt 2>/dev/null)" = "run" ]; then
	ok "y without OSC 52: the file holds the name"
else
	not_ok "y without OSC 52: the file holds the name"
fi
keys q
wait_for "EXIT=0" || bail "tflame did not quit"

finish
