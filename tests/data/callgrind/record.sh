#!/bin/sh
# Re-record prog.callgrind and rec.callgrind from prog.c and rec.c: run
# from this directory. valgrind's defaults hold (rec.callgrind shows the
# default --separate-recs: fib'2, is_even'2). Machine paths in the output
# (the build directory, the libraries) are replaced by fixed ones.
set -e
for prog in prog rec; do
	cc -O0 -g -o /tmp/tflame-cg-$prog $prog.c
	(cd /tmp && valgrind --tool=callgrind --callgrind-out-file=/tmp/tflame-cg.out \
		--toggle-collect=main ./tflame-cg-$prog)
	sed -e "s#/tmp/tflame-cg-$prog#/build/$prog#g" -e "s#$(pwd)/##g" \
		-e 's#^\(cmd:\).*#\1 ./'$prog'#' -e 's#^\(pid:\).*#\1 4242#' \
		-e 's#^\(creator:\).*#\1 callgrind#' /tmp/tflame-cg.out >$prog.callgrind
	rm -f /tmp/tflame-cg-$prog /tmp/tflame-cg.out
done
