# The tmux rig of the screen tests (screen.sh, terminal.sh): sourced after
# tests/lib.sh. Skips the test (77) when tmux is missing. Every wait polls
# the screen until the expected text shows (or a timeout), never a fixed
# sleep.

if ! command -v tmux >/dev/null 2>&1; then
	echo "tmux not found: skipping the screen tests"
	exit 77
fi

# How many times a wait polls, 0.05 s apart: 10 s, or a minute when every
# tflame runs under memcheck (make check-valgrind), where a redraw after a
# burst of resizes can take seconds on a loaded machine.
tries=200
[ -n "${TFLAME_VALGRIND:-}" ] && tries=1200

# A private server per window (a new socket each time: a server being
# killed cannot be mistaken for the next one), killed on every way out.
nr_windows=0
sock="tflame-screen-$$-0"
T() {
	tmux -L "$sock" -f /dev/null "$@"
}
trap 'T kill-server >/dev/null 2>&1; rm -rf "$tmpdir"' EXIT
trap 'exit 1' INT TERM HUP

# The shell in the pane: a prompt to look for once tflame has exited.
cat >"$tmpdir/env.sh" <<EOF
PS1='tfsh\$ '
export PS1
cd "$top_srcdir"
EOF

# start W H [ENV=VALUE...]: a new window of W x H running a shell, with
# the terminal, locale and time zone pinned (the arguments override them).
start() {
	w=$1 h=$2
	shift 2
	T kill-server >/dev/null 2>&1
	nr_windows=$((nr_windows + 1))
	sock="tflame-screen-$$-$nr_windows"
	T new-session -d -s tf -x "$w" -y "$h" \
		"env -i PATH=\"$PATH\" HOME=\"$tmpdir\" ENV=\"$tmpdir/env.sh\" \
		TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC $* sh -i"
	wait_for 'tfsh$' || bail "the shell did not start"
}

bail() {
	not_ok "$1" "$(screen)"
	finish
	exit 1
}

# run COMMAND: type a command line into the shell; its exit status shows
# as "EXIT=N" when it ends.
run() {
	T send-keys -t tf -l "$*; echo EXIT=\$?"
	T send-keys -t tf Enter
}

keys() {
	T send-keys -t tf "$@"
}

screen() {
	T capture-pane -p -t tf 2>/dev/null
}

# wait_for TEXT: poll until TEXT is on the screen ($tries polls at most).
wait_for() {
	i=0
	while [ $i -lt $tries ]; do
		screen | grep -qF -- "$1" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# wait_gone TEXT: poll until TEXT has left the screen.
wait_gone() {
	i=0
	while [ $i -lt $tries ]; do
		screen | grep -qF -- "$1" || return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# poll COMMAND...: run COMMAND until it succeeds ($tries polls at most).
poll() {
	i=0
	while [ $i -lt $tries ]; do
		"$@" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# check DESCRIPTION COMMAND...: ok when COMMAND succeeds, else show the screen.
check() {
	what=$1
	shift
	if "$@"; then
		ok "$what"
	else
		not_ok "$what" "waited for: $*" "$(screen)"
	fi
}

# The first line of the details bar: the selected frame's name. It is the
# line after the rule (a line of ─ under the boxes).
details_name() {
	screen | sed -n '/^──/{n;p;q;}' | sed 's/ *$//'
}

# wait_details NAME: poll until NAME is the selected frame.
wait_details() {
	i=0
	while [ $i -lt $tries ]; do
		[ "$(details_name)" = "$1" ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# SGR mouse report for the cell (x, y), 1-based: press and release is a click.
click() {
	T send-keys -t tf -l "$(printf '\033[<0;%d;%dM\033[<0;%d;%dm' "$1" "$2" "$1" "$2")"
}
