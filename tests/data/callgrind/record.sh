#!/bin/sh
# Re-record prog.callgrind: run from this directory. Machine paths in the
# output (the build directory, the libraries) are replaced by fixed ones.
set -e
cc -O0 -g -o /tmp/tflame-cg-prog prog.c
(cd /tmp && valgrind --tool=callgrind --callgrind-out-file=/tmp/tflame-cg.out \
	--toggle-collect=main ./tflame-cg-prog)
sed -e "s#/tmp/tflame-cg-prog#/build/prog#g" -e "s#$(pwd)/##g" \
	-e 's#^\(cmd:\).*#\1 ./prog#' -e 's#^\(pid:\).*#\1 4242#' \
	-e 's#^\(creator:\).*#\1 callgrind#' /tmp/tflame-cg.out >prog.callgrind
rm -f /tmp/tflame-cg-prog /tmp/tflame-cg.out
