#include "config.h"

#include "tflame/xalloc.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static die_hook_fn *die_hook;
static atomic_flag die_hook_ran = ATOMIC_FLAG_INIT;

void
set_die_hook(die_hook_fn *fn)
{
	die_hook = fn;
}

static void
run_die_hook(void)
{
	if (die_hook && !atomic_flag_test_and_set(&die_hook_ran))
		die_hook();
}

noreturn void
die(const char *fmt, ...)
{
	va_list ap;

	run_die_hook();
	fputs("tflame: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(3);
}

noreturn void
bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	run_die_hook();
	fprintf(stderr, "tflame: BUG at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/*
 * A block of HUGE_BLOCK bytes or more from xmalloc() or xcalloc() asks for
 * transparent huge pages on the whole 2 MiB blocks inside it. Populated or
 * not, a fresh 4 KiB page costs its first touch more than writing it does:
 * in a virtual machine with shadow page tables, writing 24 MB of fresh
 * memory took 65 ms even after MADV_POPULATE_WRITE, against 1 ms for
 * memory written before; in 2 MiB pages, 512 times fewer, it took 3 to 10
 * ms. Big arrays (a stack table, per-stack weights) are written whole, so
 * huge pages cost them no memory they would not touch but the end of
 * their last 2 MiB. Where THP is off, madvise() fails and nothing changes.
 *
 * Not xrealloc(): an array grown a step at a time is moved by mremap(),
 * which splits huge pages that do not land 2 MiB-aligned again: with the
 * growing tables of a big perf script's load in huge pages, report
 * --no-symbols took 40% longer.
 * xalloc_huge() is for a block reallocated to its final size.
 */
#define HUGE_BLOCK ((size_t)4 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

void *
xalloc_huge(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
	uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t b = ((uintptr_t)p + size) & ~(HUGE_PAGE - 1);

	if (p && size >= HUGE_BLOCK && b > a)
		madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
	(void)size;
#endif
	return p;
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die("out of memory (allocating %zu bytes)", size);
	return xalloc_huge(p, size);
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die("out of memory (allocating %zu x %zu bytes)", nmemb, size);
	/* calloc() checked the product. */
	return xalloc_huge(p, nmemb * size);
}

void *
xzalloc_table(size_t nmemb, size_t size)
{
	void *p;

	if (size && nmemb > SIZE_MAX / size)
		die("out of memory (allocating %zu x %zu bytes)", nmemb, size);
	p = xmalloc(nmemb * size);
	memset(p, 0, nmemb * size);
	return p;
}

void *
xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		die("out of memory (allocating %zu bytes)", size);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		die("out of memory (%zu x %zu bytes overflows)", nmemb, size);
	return xrealloc(ptr, nmemb * size);
}

/*
 * A fresh block aligned on and rounded up to huge pages, all of it in
 * huge pages (malloc()'s big blocks start 16 bytes into a page, which
 * leaves their first and last 2 MiB in 4 KiB pages). The rounding costs
 * at most 2 MiB a block. Not for arrays grown by doubling: see
 * grow_samples_to() in profile.c.
 */
void *
xmalloc_huge(size_t n, size_t size, size_t least)
{
	size_t bytes;
	void *p;

	if (size && n > SIZE_MAX / size)
		die("out of memory (%zu x %zu bytes overflows)", n, size);
	bytes = n * size;
	if (bytes < least)
		return xmalloc(bytes ? bytes : 1);
	if (bytes > SIZE_MAX - HUGE_PAGE)
		die("out of memory (allocating %zu bytes)", bytes);
	bytes = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
	p = aligned_alloc(HUGE_PAGE, bytes);
	if (!p)
		die("out of memory (allocating %zu bytes)", bytes);
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}

/*
 * Pages of our own for the arrays of xgrow_pages(). On this kind of
 * virtual machine, a fresh 4 KiB page costs about 10 us to fault in
 * (2.6 ms a MiB, bench/faults.c); a 2 MiB one about as much per byte
 * the first time the host backs it, and 0.06 ms a MiB once it has. A
 * call tree rebuilt for a bigger set (the first group by process, 1.5 M
 * stacks grouped as 2.2 M at 10 M samples) took 95 to 280 ms in fresh
 * memory, 49 to 70 ms with its arrays grown in place.
 */
#define PAGES_MIN HUGE_BLOCK

static atomic_size_t pages_held;

size_t
xpages_held(void)
{
	return atomic_load_explicit(&pages_held, memory_order_relaxed);
}

static size_t
pages_bytes(size_t nmemb, size_t size)
{
	if (size && nmemb > (SIZE_MAX - HUGE_PAGE) / size)
		die("out of memory (%zu x %zu bytes overflows)", nmemb, size);
	return (nmemb * size + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
}

/* An address range of bytes (whole huge pages) aligned on a huge page, reserved. */
static void *
pages_reserve(size_t bytes)
{
	char *p = mmap(NULL, bytes + HUGE_PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		die("out of memory (mapping %zu bytes)", bytes);
	a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	if ((uintptr_t)p + HUGE_PAGE > a)
		munmap((void *)(a + bytes), (uintptr_t)p + HUGE_PAGE - a);
	return (void *)a;
}

/*
 * Move the pages of [from, from + bytes), whole huge pages, onto the same
 * length at to, a mapping or reservation of ours, a huge page at a time.
 * mremap() moves one mapping only (on kernels before 6.17), and a range
 * that pool_fill() filled is several, one per piece of the pool, which
 * the kernel does not merge when their pages came from different blocks:
 * moved whole, it fails (EFAULT) after unmapping the target. Every such
 * piece is whole huge pages, so a huge page lies in one mapping. False
 * when a move failed, with the pages before it moved.
 */
static bool
pages_move(void *from, size_t bytes, void *to)
{
	for (size_t off = 0; off < bytes; off += HUGE_PAGE)
		if (mremap((char *)from + off, HUGE_PAGE, HUGE_PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
			   (char *)to + off) == MAP_FAILED)
			return false;
	return true;
}

/*
 * Pages let go by xfree_pages(), kept mapped for the next block or growth
 * of xgrow_pages(), up to POOL_CAP bytes. On this kind of virtual machine,
 * memory given back to the kernel goes back to the host within seconds,
 * and a fresh page costs its first touch about 2 ms a MiB in huge pages
 * (3 in 4 KiB ones), where a page of ours moved by mremap() costs nothing
 * to touch again: so the scratch of one pass is the next one's room, as
 * the group by process's per-stack scratch becomes its call tree's new
 * nodes. Whole huge pages, 2 MiB-aligned, so that they move as such.
 */
#define POOL_CAP ((size_t)128 << 20)
#define POOL_MAX 32

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pool_range {
	uintptr_t at;
	size_t bytes;
} pool[POOL_MAX];
static size_t nr_pool, pool_bytes;

size_t
xpages_pooled(void)
{
	size_t n;

	pthread_mutex_lock(&pool_lock);
	n = pool_bytes;
	pthread_mutex_unlock(&pool_lock);
	return n;
}

/* Keep the pages [p, p + bytes) in the pool, or unmap them when it is full. */
static void
pool_put(void *p, size_t bytes)
{
	pthread_mutex_lock(&pool_lock);
	if (nr_pool < POOL_MAX && pool_bytes + bytes <= POOL_CAP) {
		pool[nr_pool++] = (struct pool_range){ (uintptr_t)p, bytes };
		pool_bytes += bytes;
		p = NULL;
	}
	pthread_mutex_unlock(&pool_lock);
	if (p)
		munmap(p, bytes);
}

/*
 * Move pooled pages over [dst, dst + bytes), a mapping of ours, from its
 * start: the last kept first, a range split when it is longer than what
 * is left. What the pool cannot fill stays as it was.
 */
static void
pool_fill(uintptr_t dst, size_t bytes)
{
	pthread_mutex_lock(&pool_lock);
	while (bytes && nr_pool) {
		struct pool_range *r = &pool[nr_pool - 1];
		size_t n = r->bytes < bytes ? r->bytes : bytes;

		if (!pages_move((void *)r->at, n, (void *)dst)) {
			/* Not ours to move: out of the pool, and what is left of dst stays fresh. */
			munmap((void *)r->at, r->bytes);
			pool_bytes -= r->bytes;
			nr_pool--;
			break;
		}
		r->at += n;
		r->bytes -= n;
		pool_bytes -= n;
		if (!r->bytes)
			nr_pool--;
		dst += n;
		bytes -= n;
	}
	pthread_mutex_unlock(&pool_lock);
}

void *
xgrow_pages(void *ptr, size_t old, size_t nmemb, size_t size)
{
	size_t want = nmemb * size, bytes, had;
	void *p;

	if (size && nmemb > SIZE_MAX / size)
		die("out of memory (%zu x %zu bytes overflows)", nmemb, size);
	if (nmemb < old)
		BUG("pages of %zu elements shrunk to %zu", old, nmemb);
	if (want < PAGES_MIN)
		return xreallocarray(ptr, nmemb, size);
	bytes = pages_bytes(nmemb, size);
	if (old * size >= PAGES_MIN) {
		had = pages_bytes(old, size);
		if (had >= bytes)
			return ptr;
		/*
		 * Moved to a huge-page boundary, where its huge pages stay
		 * whole, and the rest of the reservation made writable.
		 */
		p = pages_reserve(bytes);
		if (!pages_move(ptr, had, p) ||
		    mprotect((char *)p + had, bytes - had, PROT_READ | PROT_WRITE))
			die("out of memory (mapping %zu bytes)", bytes);
		pool_fill((uintptr_t)p + had, bytes - had);
		atomic_fetch_add_explicit(&pages_held, bytes - had, memory_order_relaxed);
	} else {
		p = pages_reserve(bytes);
		if (mprotect(p, bytes, PROT_READ | PROT_WRITE))
			die("out of memory (mapping %zu bytes)", bytes);
		pool_fill((uintptr_t)p, bytes);
		if (old && ptr)
			memcpy(p, ptr, old * size);
		free(ptr);
		atomic_fetch_add_explicit(&pages_held, bytes, memory_order_relaxed);
	}
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}

void
xfree_pages(void *ptr, size_t nmemb, size_t size)
{
	if (ptr && nmemb * size >= PAGES_MIN) {
		pool_put(ptr, pages_bytes(nmemb, size));
		atomic_fetch_sub_explicit(&pages_held, pages_bytes(nmemb, size),
					  memory_order_relaxed);
	} else {
		free(ptr);
	}
}

char *
xstrdup(const char *s)
{
	return xmemdup(s, strlen(s) + 1);
}

char *
xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void *
xmemdup(const void *p, size_t n)
{
	void *q = xmalloc(n);

	if (n)
		memcpy(q, p, n);
	return q;
}

/*
 * Huge pages for malloc()'s own heaps, where the hash tables of a load
 * and libdw's thousands of small blocks live. A fresh 4 KiB page costs
 * about 12 us to fault in here; libdw's interning of libc6-dbg's 2,063
 * units for its address ranges took 16-26 ms in a symbols worker, 7-9 ms
 * in huge pages, and report on the 100 MB system profile 0.139 s against
 * 0.105 s (bench/README.md). glibc does this itself only when told by
 * GLIBC_TUNABLES (glibc.malloc.hugetlb=1 with a big top_pad), which it
 * reads at start: so the heap a thread allocates from is found in
 * /proc/self/maps and advised here, with the reservation a thread's heap
 * grows into (a PROT_NONE mapping right after it), so that what glibc
 * makes writable later is advised too. The block malloc() already wrote
 * (its header) is collapsed to a huge page, or it would stay in 4 KiB
 * ones. Where THP, /proc or MADV_COLLAPSE (Linux 6.1) is missing, nothing
 * changes. Not under the sanitizers, whose allocator is not malloc()'s.
 *
 * malloc()'s own settings are left alone. A 64 MiB M_TOP_PAD made a new
 * thread's heap writable in full when made, and fixed mmap and trim
 * thresholds (32 and 64 MiB) stood in for the sliding ones that M_TOP_PAD
 * turns off; it cost more memory than it saved time. Blocks up to 32 MiB
 * then came from the heaps, where realloc() copies where glibc's own
 * mappings are moved by mremap(), and what was freed stayed there: at 1 GB
 * of perf script, report took 331 MB and collapse 357 MB, against 191 and
 * 185 MB for the build before huge pages, and with the pad alone back at
 * one huge page, still 205-253 MB against 173-182 without any setting
 * (bench/memory.sh). glibc's sliding threshold rises by itself to the
 * size of each big block freed, so that transforms reuse heap memory as
 * they did with the fixed one.
 */
#if defined(__SANITIZE_ADDRESS__)
#define HEAP_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define HEAP_SANITIZED 1
#endif
#endif

#if defined(__GLIBC__) && defined(MADV_HUGEPAGE) && !defined(HEAP_SANITIZED)
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#define HEAPS_KEPT 32

static pthread_mutex_t heaps_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t heaps[HEAPS_KEPT][2]; /* advised already: [start, end) */
static size_t nr_heaps;

/* Was the mapping holding addr advised already? */
static bool
heap_known(uintptr_t addr)
{
	bool known = false;

	pthread_mutex_lock(&heaps_lock);
	for (size_t i = 0; i < nr_heaps && !known; i++)
		known = addr >= heaps[i][0] && addr < heaps[i][1];
	pthread_mutex_unlock(&heaps_lock);
	return known;
}

/*
 * The mapping holding addr, from /proc/self/maps, with the reservation
 * right after it that a thread's heap grows into (PROT_NONE, anonymous).
 */
static bool
heap_mapping(uintptr_t addr, uintptr_t *start, uintptr_t *end)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	bool found = false, done = false;

	if (!f)
		return false;
	while (!done && fgets(line, sizeof(line), f)) {
		unsigned long a, b, ino;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s %*s %*s %lu", &a, &b, perms, &ino) == 4) {
			if (!found && a <= addr && addr < b) {
				*start = a;
				*end = b;
				found = true;
			} else if (found) {
				if (a == *end && !strcmp(perms, "---p") && !ino)
					*end = b;
				done = true;
			}
		}
		/* The rest of a line longer than the buffer is not a new line. */
		while (!strchr(line, '\n') && fgets(line, sizeof(line), f))
			;
	}
	fclose(f);
	return found;
}

void
xheap_huge_pages(void)
{
	uintptr_t addr, a, b, c;
	void *p;

	p = malloc(1);
	if (!p)
		return;
	addr = (uintptr_t)p;
	if (!heap_known(addr) && heap_mapping(addr, &a, &b)) {
		madvise((void *)a, b - a, MADV_HUGEPAGE);
		c = addr & ~(HUGE_PAGE - 1);
		if (c >= a && c + HUGE_PAGE <= b)
			madvise((void *)c, HUGE_PAGE, MADV_COLLAPSE);
		pthread_mutex_lock(&heaps_lock);
		if (nr_heaps < HEAPS_KEPT) {
			heaps[nr_heaps][0] = a;
			heaps[nr_heaps][1] = b;
			nr_heaps++;
		}
		pthread_mutex_unlock(&heaps_lock);
	}
	free(p);
}
#else
void
xheap_huge_pages(void)
{
}
#endif
