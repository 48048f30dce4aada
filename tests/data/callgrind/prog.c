/*
 * Recorded for the callgrind golden tests (see record.sh): work shared by
 * two callers, so the unfolded tree shows speedscope's approximation.
 */
static volatile unsigned long sink;

static void
leaf(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += i;
}

static void
shared(unsigned n)
{
	leaf(n);
}

static void
parse(void)
{
	for (int i = 0; i < 100; i++)
		shared(100);
}

static void
render(void)
{
	for (int i = 0; i < 300; i++)
		shared(100);
}

int
main(void)
{
	parse();
	render();
	return 0;
}
