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
# is left running.
first_screen() {
	_fs_sock=$1 _fs_w=$2 _fs_h=$3 _fs_limit=$(($4 * 1000))
	shift 4
	_fs_start=$(now_ms)
	tmux -L "$_fs_sock" new-session -d -x "$_fs_w" -y "$_fs_h" "$*"
	while :; do
		tmux -L "$_fs_sock" capture-pane -p >"$out/screen.$$" 2>/dev/null || :
		if grep -q '1 Left Heavy' "$out/screen.$$" &&
		   sed -n 2p "$out/screen.$$" | grep -q '[[:alnum:]_]'; then
			break
		fi
		[ $(($(now_ms) - _fs_start)) -lt "$_fs_limit" ] || { rm -f "$out/screen.$$"; return 1; }
		sleep 0.01
	done
	echo $(($(now_ms) - _fs_start))
	rm -f "$out/screen.$$"
}
