/*
 * The program of tests/inline.sh, recorded with perf for
 * tests/data/inline/ (see README there).
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;

/* Inlined into cmp(): perf script prints its frames "(inlined)" above cmp's. */
static inline __attribute__((always_inline)) unsigned
mix(unsigned x)
{
	for (int i = 0; i < 8; i++)
		x = x * 2654435761u + sink;
	return x;
}

__attribute__((noinline)) static int
cmp(unsigned a, unsigned b)
{
	unsigned x = mix(a), y = mix(b);

	return (x > y) - (x < y);
}

/*
 * Always called with stride 1: GCC makes the clone sortrec.constprop.0,
 * which the debug info names sortrec, so perf script prints its frames
 * "sortrec (inlined)" with no line of the module, once per level of
 * recursion, all at one return address.
 */
struct sort_param {
	unsigned *tmp;
	int (*cmp)(unsigned, unsigned);
};

static void
sortrec(const struct sort_param *p, unsigned *v, size_t n, size_t stride)
{
	unsigned *tmp = p->tmp;
	size_t h, i, j, k;

	if (n <= 1)
		return;
	h = n / 2;
	sortrec(p, v, h, stride);
	sortrec(p, v + h * stride, n - h, stride);
	for (i = 0, j = h, k = 0; i < h && j < n;)
		tmp[k++] = p->cmp(v[i], v[j]) <= 0 ? v[i++] : v[j++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	for (k = 0; k < n; k++)
		v[k] = tmp[k];
}

/* Its symbol perf names it by is "work", its debug info's name work_impl. */
__attribute__((noinline)) static unsigned
work_impl(unsigned x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 1103515245u + 12345u + sink;
	return x;
}
extern unsigned work(unsigned) __attribute__((alias("work_impl")));

/* noreturn: its caller's call is that caller's last instruction. */
__attribute__((noinline, noreturn)) static void
die(unsigned x)
{
	for (int i = 0; i < 200000000; i++)
		x = x * 1103515245u + 12345u + sink;
	exit((int)(x & 1));
}

__attribute__((noinline)) void
finish(unsigned x)
{
	sink = x;
	die(x);
}

__attribute__((noinline)) unsigned
after_finish(unsigned x)
{
	return x * 3;
}

int
main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	unsigned *v = malloc(n * sizeof(*v)), *tmp = malloc(n * sizeof(*tmp)), acc = 0;

	if (!v || !tmp)
		return 1;
	for (size_t i = 0; i < n; i++)
		v[i] = (unsigned)(i * 2654435761u);
	struct sort_param p = { tmp, cmp };

	sortrec(&p, v, n, 1);
	for (size_t i = 0; i < n / 100; i++)
		acc += work(v[i]);
	printf("%u\n", acc + after_finish(v[0]));
	finish(acc);
}
