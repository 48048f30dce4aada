#!/bin/sh
# Terminal robustness: the real binary in tmux (tests/tmux.sh) at extreme
# sizes, through resizes, on terminals it cannot use, in a locale that is
# not UTF-8, stopped and resumed, and killed from outside, asserting on
# the screen, the exit status and the terminal modes (stty -a) left behind.
# Skipped (77) when tmux is missing.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tmux.sh"

sample=data/sample.perf.txt

# rule_width: the number of columns of the rule above the details bar.
rule_width() {
	screen | sed -n '/^──/{p;q;}' | sed 's/ *$//' | tr -d '\n' | wc -m
}

# rule_is N: the rule is N columns wide.
rule_is() {
	[ "$(rule_width)" -eq "$1" ]
}

# snapshot NAME: save the screen as NAME, to compare two draws, once it
# has stopped changing (slow caches are drawn a moment after the keys).
snapshot() {
	i=0
	screen >"$tmpdir/$1"
	while [ $i -lt $((tries / 10)) ]; do
		sleep 0.5
		screen >"$tmpdir/now"
		cmp -s "$tmpdir/$1" "$tmpdir/now" && return 0
		mv "$tmpdir/now" "$tmpdir/$1"
		i=$((i + 1))
	done
	return 1
}

# screen_is A: the screen is the one saved as A.
screen_is() {
	screen >"$tmpdir/now" && cmp -s "$tmpdir/$1" "$tmpdir/now"
}

# same_screen A: the screen is now the one saved as A (polled: a redraw
# may still be on its way).
same_screen() {
	poll screen_is "$1"
}

# stty_save NAME: the shell writes its terminal modes to NAME.
stty_save() {
	rm -f "$tmpdir/$1"
	T send-keys -t tf -l "stty -a >\"$tmpdir/$1.tmp\" && mv \"$tmpdir/$1.tmp\" \"$tmpdir/$1\""
	T send-keys -t tf Enter
	poll test -s "$tmpdir/$1"
}

# --------------------------------------------------------------- sizes
# 20x5 is below the smallest layout: a request to grow, keys do no harm,
# and growing the window brings the explorer.
start 20 5
run "$TFLAME" $sample
check "20x5: asks for a bigger window" wait_for "window bigger"
keys Down Down Right Enter / x Enter Escape
check "20x5: keys draw nothing else" wait_for "window bigger"
keys "?"
T resize-window -t tf -x 100 -y 30
check "20x5 grown to 100x30: the help page typed while small" wait_for "Panes and profiles"
keys q
check "20x5 grown: the explorer under it" wait_for " 1 L"
keys q
check "20x5: q quits with status 0" wait_for "EXIT=0"

# The smallest layout, 20x6: the explorer, not the request.
start 20 6
run "$TFLAME" $sample
check "20x6: the explorer draws, the tabs by their keys" wait_for " 1  2  3  │ 1.51 s"
check "20x6: no request to grow" wait_gone "window bigger"
keys Down Enter
check "20x6: the rule fits the width" poll rule_is 20
keys q
check "20x6: q quits with status 0" wait_for "EXIT=0"

# A very large terminal: every line drawn to the full width.
start 400 120
run "$TFLAME" $sample
check "400x120: the explorer draws" wait_for " 1 L"
check "400x120: the rule is 400 columns" poll rule_is 400
check "400x120: the total at the right of the tab bar" \
	poll sh -c "tmux -L '$sock' -f /dev/null capture-pane -p -t tf | head -1 | grep -q '1.51 s *\$'"
keys Down Down Down
check "400x120: moving shows the frame below" wait_for "function   total"
keys q
check "400x120: q quits with status 0" wait_for "EXIT=0"

# An 8-colour terminal (xterm: 64 colour pairs) paints the boxes too: the
# SGR of a background in 41-47 before a box's label, the hot palette's
# red or yellow.
boxes_8_colours() {
	esc=$(printf '\033')
	T capture-pane -p -e -t tf | sed -n 2,4p | LC_ALL=C grep -q "$esc\[4[13]m"
}
start 100 30 TERM=xterm
run "$TFLAME" $sample
check "8 colours: the explorer draws" wait_for " 1 Left Heavy"
check "8 colours: the boxes have colour" poll boxes_8_colours
keys q
check "8 colours: q quits with status 0" wait_for "EXIT=0"

# Resizes while keys arrive, down to 1x1 and up to 300x90: then the
# screen at 100x30 is exactly what a full redraw (Ctrl-L) draws. Without
# symbols: their job's status message may come or go between the two
# screens (under valgrind, after the snapshot had settled).
start 100 30
run "$TFLAME" --no-symbols $sample
wait_for " 1 L" || bail "tflame did not start"
for size in 60x15 300x90 20x5 1x1 120x40 80x24 19x6 250x60 40x10 100x30 \
	    33x7 200x50 80x24 5x2 150x45 100x30 90x20 100x30; do
	T resize-window -t tf -x "${size%x*}" -y "${size#*x}"
	keys Down Right
done
keys Up Up Left
T resize-window -t tf -x 100 -y 30
check "resizes: the explorer draws at 100x30" poll rule_is 100
snapshot after-resize
keys C-l
check "resizes: the screen is what a full redraw draws" same_screen after-resize
keys q
check "resizes: q quits with status 0" wait_for "EXIT=0"

# ----------------------------------------------------- terminal types
# A terminal curses does not know, or one that cannot move the cursor:
# a message naming the type and why, exit 2, and the screen untouched.
start 100 30
T send-keys -t tf -l "echo MARKER-BEFORE" && keys Enter
wait_for "MARKER-BEFORE"
run "TERM=dumb $TFLAME $sample"
check "TERM=dumb: exit 2" wait_for "EXIT=2"
check "TERM=dumb: says it cannot move the cursor" \
	wait_for "tflame: cannot use terminal type 'dumb': it cannot move the cursor"
run "TERM=no-such-terminal $TFLAME $sample"
check "unknown TERM: exit 2" wait_for "EXIT=2"
check "unknown TERM: says terminfo does not know it" \
	wait_for "cannot use terminal type 'no-such-terminal': not in the terminfo database"
run "TERM= $TFLAME $sample"
check "empty TERM: says TERM is not set" wait_for "tflame: TERM is not set"
check "the screen before is still there (no alternate screen, no clear)" \
	wait_for "MARKER-BEFORE"

# ------------------------------------------------------ non-UTF-8 locale
# LANG=C: ASCII lines, and the bytes of UTF-8 names not sent raw: "?" for
# each column of a character, \xNN for a byte that is not UTF-8.
printf 'main;caf\303\251;\346\227\245\346\234\254;bad\377name 5\nmain;caf\303\251;plain 3\n' \
	>"$tmpdir/utf8.folded"
start 100 30 LANG=C LC_ALL=C
run "$TFLAME" "$tmpdir/utf8.folded"
check "C locale: the explorer draws" wait_for " 1 L"
check "C locale: an ASCII rule" wait_for "-----------"
check "C locale: é shown as ?" wait_for "caf?"
check "C locale: a double-width character as ??" wait_for "????"
check "C locale: an invalid byte as \\xff" wait_for 'bad\xffname'
if screen | LC_ALL=C grep -q '[^ -~]'; then
	not_ok "C locale: nothing but printable ASCII on the screen" "$(screen | LC_ALL=C grep -n '[^ -~]')"
else
	ok "C locale: nothing but printable ASCII on the screen"
fi
keys q
check "C locale: q quits with status 0" wait_for "EXIT=0"

# ------------------------------------------------------------ Ctrl-Z
# Ctrl-Z gives the shell its terminal modes back; fg redraws the same
# screen, and a resize while stopped is drawn at the new size.
start 100 30
stty_save stty-shell || bail "stty -a did not run"
run "$TFLAME" $sample
wait_for " 1 L" || bail "tflame did not start"
keys Down Down Right
wait_for "function   total" || bail "tflame did not move"
snapshot before-stop
keys C-z
check "Ctrl-Z: the shell says tflame stopped" wait_for "Stopped"
stty_save stty-stopped
check "Ctrl-Z: the shell's terminal modes are back" cmp -s "$tmpdir/stty-shell" "$tmpdir/stty-stopped"
T send-keys -t tf "clear" Enter
# The command line that started tflame went on when it stopped: fg's own
# line says how it ends.
run fg
check "fg: the same screen as before Ctrl-Z" same_screen before-stop
keys C-z
wait_for "Stopped" || bail "the second Ctrl-Z did not stop tflame"
T resize-window -t tf -x 130 -y 35
run fg
check "fg after a resize: drawn at the new width" poll rule_is 130
keys q
check "fg: q quits with status 0" wait_for "EXIT=0"

# ---------------------------------------------- signals from outside
# kill_test SIGNAL STATUS: tflame in the foreground of the shell, killed
# from elsewhere: it dies of the signal (128 + its number) and the shell
# finds the terminal modes it had before.
kill_test() {
	start 100 30
	stty_save stty-before || bail "stty -a did not run"
	run "sh -c 'echo \$\$ >\"$tmpdir/pid\"; exec \"$TFLAME\" $sample'"
	wait_for " 1 L" || bail "tflame did not start"
	kill -"$1" "$(cat "$tmpdir/pid")"
	check "SIG$1 from outside: tflame dies of it (exit $2)" wait_for "EXIT=$2"
	stty_save stty-after
	if cmp -s "$tmpdir/stty-before" "$tmpdir/stty-after"; then
		stty_same=yes
	else
		stty_same=no
	fi
}

kill_test HUP 129
check "SIGHUP: the terminal modes are restored" test $stty_same = yes
check "SIGHUP: the alternate screen is left" wait_gone " 1 L"
kill_test TERM 143
check "SIGTERM: the terminal modes are restored" test $stty_same = yes
check "SIGTERM: the alternate screen is left" wait_gone " 1 L"
# SIGKILL cannot be caught: the modes stay raw, which the comparison sees.
# This proves that the checks above can fail.
kill_test KILL 137
check "SIGKILL (the control): the comparison sees the raw modes" test $stty_same = no

# The window closed under tflame: SIGHUP and a terminal that is gone. It
# must exit, not spin on a dead terminal nor crash. The shell around it
# catches SIGHUP to live on and write down how tflame ended.
T kill-server >/dev/null 2>&1
nr_windows=$((nr_windows + 1))
sock="tflame-screen-$$-$nr_windows"
rm -f "$tmpdir/status"
T new-session -d -s tf -x 100 -y 30 \
	"env -i PATH=\"$PATH\" TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 sh -c \
	'trap : HUP; cd \"$top_srcdir\"; \"$TFLAME\" $sample; echo \$? >\"$tmpdir/status\"'"
wait_for " 1 L" || bail "tflame did not start in its own window"
T kill-window -t tf
check "window closed: tflame exits" poll test -s "$tmpdir/status"
status=$(cat "$tmpdir/status" 2>/dev/null)
if [ "$status" = 129 ]; then
	ok "window closed: tflame dies of SIGHUP (exit 129), no crash"
else
	not_ok "window closed: tflame dies of SIGHUP (exit 129), no crash" "exit ${status:-unknown}"
fi

finish
