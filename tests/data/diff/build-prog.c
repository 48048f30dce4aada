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
