/*
 * Recorded for tflame's callgrind tests (see record.sh): direct
 * recursion (fib), mutual recursion (is_even/is_odd) and a leaf called
 * from inside the recursion (work), under valgrind's default
 * --separate-recs, which names the deeper levels fib'2, is_even'2, ...
 */
static volatile unsigned long sink;

static void
work(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += i;
}

static unsigned
fib(unsigned n)
{
	work(10);
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int is_odd(unsigned n);

static int
is_even(unsigned n)
{
	work(5);
	return n == 0 ? 1 : is_odd(n - 1);
}

static int
is_odd(unsigned n)
{
	return n == 0 ? 0 : is_even(n - 1);
}

int
main(void)
{
	sink += fib(12);
	sink += is_even(40);
	work(1000);
	return 0;
}
