#!/bin/sh
# The progress line of a slow load (load.h, progress.h): in tmux at 40
# columns it is one row that fits, starts with "tflame:" and shows the end
# of a long path; it is redrawn in place, and gone from the screen however
# the load ends (success, bad input, Ctrl-C, SIGTERM) and while Ctrl-Z has
# stopped it, for the explorer and for report. Never written when stderr
# is not a terminal, nor by a job in the background. Skipped (77) when
# tmux is missing.

. "$top_srcdir/tests/lib.sh"

# A FIFO under a long path, so that the load lasts as long as its writer.
dir="$tmpdir/a-rather-long-directory-name/and-another-one"
fifo="$dir/perf-1100000000.txt"
mkdir -p "$dir" && mkfifo "$fifo" || exit 99
printf '\001\002\003 not a profile \377\376\n' >"$tmpdir/junk" || exit 99

# slow SECONDS INPUT ARG...: write INPUT into the FIFO and hold it open for
# SECONDS more, while tflame ARG... loads the FIFO. tflame keeps the
# script's pid (written to $tmpdir/pid), the writer's goes to
# $tmpdir/writer. A script, so that the line typed into the shell is short.
cat >"$tmpdir/slow" <<EOF || exit 99
#!/bin/sh
secs=\$1 input=\$2
shift 2
(cat "\$input"; exec sleep "\$secs") >'$fifo' &
echo \$! >'$tmpdir/writer'
echo \$\$ >'$tmpdir/pid'
exec '$TFLAME' "\$@" '$fifo'
EOF
chmod +x "$tmpdir/slow" || exit 99

stop_writer() {
	[ -s "$tmpdir/writer" ] && kill "$(cat "$tmpdir/writer")" 2>/dev/null
	rm -f "$tmpdir/writer"
}

# ------------------------------------------------------ not a terminal
"$tmpdir/slow" 1 "$top_srcdir/data/sample.perf.txt" report \
	>"$tmpdir/out" 2>"$tmpdir/err"
status=$?
if [ "$status" -eq 0 ] && [ ! -s "$tmpdir/err" ] && grep -q "^top .* functions by self" "$tmpdir/out"; then
	ok "stderr not a terminal: a slow load writes no progress line"
else
	not_ok "stderr not a terminal: a slow load writes no progress line" \
		"exit $status" "$(cat -v "$tmpdir/err")"
fi
stop_writer

. "$top_srcdir/tests/tmux.sh"
# tmux.sh's clean-up, and a writer left holding the FIFO.
trap 'stop_writer; T kill-server >/dev/null 2>&1; rm -rf "$tmpdir"' EXIT

# The rows of the screen that hold the progress line.
progress_rows() {
	screen | grep -e ' kB read' -e 'Ctrl-C cancels'
}

# progress_fits: the progress line is on the screen, on one row that
# starts with "tflame:", shows the end of the path and what was read, and
# leaves the last of the 40 columns free.
progress_fits() {
	row=$(progress_rows)
	[ "$(printf '%s\n' "$row" | wc -l)" -eq 1 ] || return 1
	case $row in
	"tflame: "*"perf-1100000000.txt: "*" kB read"*) ;;
	*) return 1 ;;
	esac
	[ "$(printf '%s' "$row" | sed 's/ *$//' | wc -m)" -le 39 ]
}

# no_trail: nothing of the progress line is left on the screen.
no_trail() {
	[ -z "$(progress_rows)" ] && ! screen | grep -q '^tflame: [^ ]*perf-1100000000\.txt: [0-9]'
}

# error_row: a message starts a row of its own, not after a line left there.
error_row() {
	screen | grep -q '^tflame: /'
}

# prompt_alone: a row holds the shell's prompt and nothing else.
prompt_alone() {
	screen | grep -q '^tfsh\$ *$'
}

sample=data/sample.perf.txt

# report, cancelled with Ctrl-C.
start 40 15
run "$tmpdir/slow 60 $sample report"
check "report: a slow load shows the progress line on one row of 40" poll progress_fits
# Five redraws later (one every 0.1 s), still one row: "\r" reached its start.
sleep 0.5
check "redrawn in place: still one row" progress_fits
keys C-c
check "Ctrl-C cancels report's load: status 130" wait_for "EXIT=130"
check "and says so" wait_for "tflame: loading cancelled"
check "Ctrl-C: no trail of the progress line" no_trail
stop_writer

# report, loaded: the line is gone, and the report follows (in a file:
# the shell's "EXIT=0" then lands where the line was).
start 40 15
run "$tmpdir/slow 2 $sample report --limit=1 >$tmpdir/report"
check "report: the progress line shows" poll progress_fits
check "report: loads when the input ends" wait_for "EXIT=0"
check "report: no trail of the progress line" no_trail
check "report: the report" grep -q "^top 1 functions by self" "$tmpdir/report"

# Bad input: the error alone, on a line of its own.
start 40 15
run "$tmpdir/slow 2 $tmpdir/junk report"
check "bad input: the progress line shows" poll progress_fits
check "bad input: status 1" wait_for "EXIT=1"
check "bad input: no trail of the progress line" no_trail
check "bad input: the error starts its row" error_row

# SIGTERM from outside: the line goes, and tflame dies of the signal.
start 40 15
run "$tmpdir/slow 60 $sample report"
check "SIGTERM: the progress line shows" poll progress_fits
kill -TERM "$(cat "$tmpdir/pid")"
check "SIGTERM: status 143" wait_for "EXIT=143"
check "SIGTERM: no trail of the progress line" no_trail
stop_writer

# Ctrl-Z: the line goes before the job stops, and comes back with fg.
start 40 15
run "$tmpdir/slow 60 $sample report"
check "Ctrl-Z: the progress line shows" poll progress_fits
keys C-z
check "Ctrl-Z: the job stops" wait_for "Stopped"
check "Ctrl-Z: no trail of the progress line" no_trail
run fg
check "fg: the progress line is back" poll progress_fits
keys C-c
check "fg: Ctrl-C still cancels" wait_for "EXIT=130"
check "fg: no trail of the progress line" no_trail
stop_writer

# A job in the background draws nothing over the shell.
start 40 15
T send-keys -t tf -l "$tmpdir/slow 2 $sample report >$tmpdir/report-bg &"
T send-keys -t tf Enter
check "background: the load ends" poll grep -q "^top .* functions by self" "$tmpdir/report-bg"
check "background: no progress line drawn" no_trail
check "background: the shell's prompt is intact" prompt_alone

# The explorer: the same line while it loads, gone once it quits.
start 40 15
run "$tmpdir/slow 2 $sample"
check "explorer: the progress line shows" poll progress_fits
check "explorer: opens when the input ends" wait_for " 1  2  3  │"
keys q
check "explorer: quits" wait_for "EXIT=0"
check "explorer: no trail of the progress line" no_trail

finish
