/*
 * The program tests/symbols.sh compiles with -g -O2 and profiles: inner()
 * is inlined into middle(), which is inlined into outer(); driver() calls
 * outer() in a loop. The line numbers matter to tests/unit/test_symbols.c,
 * which reads tiny, this file built once and committed (see README).
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

#ifdef SHIFTED
/* A rebuilt binary: code before outer() moves every address. */
__attribute__((noinline)) unsigned long
shifted(unsigned long x)
{
	for (int i = 0; i < 50; i++)
		x = x * 31 + sink + (unsigned long)i * 7 + (x >> 3);
	return x;
}
#endif

static inline __attribute__((always_inline)) unsigned long
inner(unsigned long x)
{
	for (int i = 0; i < 100; i++)
		x = x * 6364136223846793005UL + sink;
	return x;
}

static inline __attribute__((always_inline)) unsigned long
middle(unsigned long x)
{
	return inner(x) ^ (12345 + sink);
}

__attribute__((noinline)) unsigned long
outer(unsigned long x)
{
	return middle(x) * 3 + sink;
}

__attribute__((noinline)) unsigned long
driver(unsigned long n)
{
	unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += outer(i);
	return acc;
}

int
main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;

#ifdef SHIFTED
	n += shifted(n) & 1;
#endif
	printf("%lu\n", driver(n));
	return 0;
}
