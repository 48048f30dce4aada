#include "config.h"

/*
 * What fresh memory costs on this machine: a block of MiB mapped, written
 * a byte a page (each page's first touch faults it in), unmapped, four
 * times over, in 4 KiB pages and then asking for 2 MiB transparent huge
 * pages. The first round of a size may land on memory the machine never
 * touched since it booted (a virtual machine's host backs it then); the
 * later ones mostly get pages just given back.
 *
 * usage: faults [MiB]   (default 100)
 *
 * It explains the figures of the benchmarks that build something big
 * in memory the process never had (lens-bench's first P, report): on
 * the 2-core VMs this project is measured on, a 4 KiB fault cost about
 * 10 us (2.6 ms a MiB) in every round, a huge page 0.06 ms a MiB once
 * backed and 1.3 to 1.7 ms a MiB when not (bench/README.md).
 */

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "bench.h"

static void
touch(size_t bytes, int huge, int round)
{
	double t0 = now_ms(), ms;
	long f0 = bench_faults();
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("cannot map %zu bytes", bytes);
#ifdef MADV_HUGEPAGE
	if (huge)
		madvise(p, bytes, MADV_HUGEPAGE);
#endif
	for (size_t i = 0; i < bytes; i += 4096)
		p[i] = 1;
	ms = now_ms() - t0;
	printf("  %-12s round %d: %7.1f ms, %6ld faults, %.3f ms a MiB\n",
	       huge ? "2 MiB pages" : "4 KiB pages", round, ms, bench_faults() - f0,
	       ms / ((double)bytes / 1048576.0));
	munmap(p, bytes);
}

int
main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 100;
	size_t bytes;

	if (mib < 2 || mib > 65536)
		die("usage: faults [MiB], 2 to 65536");
	/* Whole huge pages, so that both kinds touch the same bytes. */
	bytes = (size_t)(mib & ~1L) << 20;
	printf("fresh memory, %zu MiB mapped, touched and unmapped, four rounds of each:\n",
	       bytes >> 20);
	for (int huge = 0; huge < 2; huge++)
		for (int r = 1; r <= 4; r++)
			touch(bytes, huge, r);
	return 0;
}
