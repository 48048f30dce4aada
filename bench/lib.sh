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
