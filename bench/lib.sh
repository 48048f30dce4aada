# Shared by the benchmark scripts: source it with the script's first
# argument, BUILD_DIR. Sets here, top, out (bench/out, for generated
# inputs), build and tflame: BUILD_DIR's tflame, or a release build made
# once in bench/out/build.

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=$here/out
mkdir -p "$out"

if [ -n "${1:-}" ]; then
	build=$(cd "$1" && pwd)
else
	build=$out/build
	if [ ! -x "$build/tflame" ]; then
		[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi)
		mkdir -p "$build"
		(cd "$build" && "$top/configure" -q CFLAGS="-O2 -g" && make -j"$(nproc)" tflame)
	fi
fi
tflame=$build/tflame

now_ms() { date +%s%3N; }

# first_screen SOCKET WIDTH HEIGHT TIMEOUT COMMAND
# Starts COMMAND (one shell command line, that tflame's explorer runs in)
# in a new detached session of the tmux server on SOCKET (a name of the
# caller's own, for tmux -L), WIDTH x HEIGHT, and waits until capture-pane
# shows the explorer's tab bar ("1 Left Heavy") and a box row under it: the
# first screen, as a person sees it. Prints the milliseconds from just
# before the start; returns 1 if TIMEOUT seconds pass first. The session
# is left running, the only one of the server.
#
# What a person's terminal does not cost is kept out of the figure: the
# tmux server is started before the clock (with a placeholder session,
# ended once the screen shows), which took ~25 ms off it, and a poll is
# one process, the tests being the shell's own: with grep and sed a poll
# took ~45 ms here and the screen was seen ~55 ms after it was drawn on
# average, now ~25 ms.
first_screen() {
	_fs_sock=$1 _fs_w=$2 _fs_h=$3 _fs_limit=$(($4 * 1000))
	shift 4
	tmux -L "$_fs_sock" new-session -d -s first-screen-idle -x "$_fs_w" -y "$_fs_h" \
		'sleep 86400'
	_fs_start=$(now_ms)
	tmux -L "$_fs_sock" new-session -d -s first-screen -x "$_fs_w" -y "$_fs_h" "$*"
	while :; do
		_fs_screen=$(tmux -L "$_fs_sock" capture-pane -p -t first-screen 2>/dev/null) ||
			_fs_screen=
		case $_fs_screen in
		*'1 Left Heavy'*)
			_fs_line=${_fs_screen#*"
"}
			_fs_line=${_fs_line%%"
"*}
			case $_fs_line in
			*[[:alnum:]_]*) break ;;
			esac
			;;
		esac
		if [ $(($(now_ms) - _fs_start)) -ge "$_fs_limit" ]; then
			tmux -L "$_fs_sock" kill-session -t first-screen-idle 2>/dev/null
			return 1
		fi
		sleep 0.01
	done
	echo $(($(now_ms) - _fs_start))
	tmux -L "$_fs_sock" kill-session -t first-screen-idle 2>/dev/null || :
}
