/*
 * The program of build-{base,new}.perf.txt, stripped-{base,new}.perf.txt
 * and ../recorded/two-builds.txt: two builds of it at two paths,
 *
 *	gcc -O1 -g -fno-omit-frame-pointer -DPARSE_FACTOR=1 -o base/prog build-prog.c
 *	gcc -O1 -g -fno-omit-frame-pointer -DPARSE_FACTOR=2 -o new/prog build-prog.c
 *
 * each recorded alone (perf 6.1, perf record -F 1000 -g ./prog; perf
 * script), and both at once (perf record -F 500 -g -- sh -c './base/prog &
 * ./new/prog & wait'). The stripped pair: the same two built with
 * -Wl,--build-id=none -s as base/prog-1.0 and new/prog-1.1, run through
 * a symlink named prog (perf record -N -F 500 -g), so that perf names no
 * function of theirs and their frames are named after their files.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long
hash_step(unsigned long h, unsigned long i)
{
	return (h ^ i) * 1099511628211ul;
}

__attribute__((noinline)) static void
parse(unsigned long n)
{
	unsigned long h = 14695981039346656037ul;

	for (unsigned long i = 0; i < n; i++)
		h = hash_step(h, i);
	sink = h;
}

__attribute__((noinline)) static void
render(unsigned long n)
{
	unsigned long h = 0;

	for (unsigned long i = 0; i < n; i++)
		h += (i * i) >> 3;
	sink = h;
}

__attribute__((noinline)) static void
run(unsigned long n)
{
	for (int k = 0; k < 20; k++) {
		parse(n * PARSE_FACTOR);
		render(n);
	}
}

int
main(void)
{
	run(4000000);
	return 0;
}
