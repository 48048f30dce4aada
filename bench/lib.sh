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
# caller's own, for tmux -L), WIDTH x HEIGHT, and waits until the pane
# shows the explorer's tab bar ("1 Left Heavy") and a box row under it:
# the first screen, as a person sees it. Prints the milliseconds from just
# before the start; returns 1 if TIMEOUT seconds pass first. The session
# is left running, the only one of the server.
#
# What a person's terminal does not cost is kept out of the figure
# (first-screen.py): the tmux server is started before the clock, and the
# pane is read every 10 ms through one control-mode client. A
# capture-pane process per poll took about 30% of a core from the
# explorer's parser threads on 2 cores.
first_screen() {
	python3 "$top/bench/first-screen.py" "$@"
}
