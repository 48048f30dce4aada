/* The radix sort of radix.h, xmalloc_huge() and xheap_huge_pages(). */
#include "config.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tflame/radix.h"
#include "tflame/xalloc.h"

/* A record with the key in the middle, and what tells equal keys apart. */
struct rec {
	uint32_t before;
	uint64_t key;
	uint32_t order; /* its place before the sort */
};

static uint64_t
next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Keys ascending, and equal keys in their order before the sort. */
static void
assert_sorted(const struct rec *r, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		assert_true(r[i - 1].key <= r[i].key);
		if (r[i - 1].key == r[i].key)
			assert_true(r[i - 1].order < r[i].order);
		assert_int_equal(r[i].before, r[i].order ^ 0x5a5a5a5au);
	}
}

/*
 * n records with keys from keyf, sorted with bits bits a pass: sorted,
 * stable, and a permutation (every order once).
 */
static void
check_sort(size_t n, unsigned bits, uint64_t (*keyf)(uint64_t *, size_t))
{
	struct rec *a = xmalloc(sizeof(*a) * (n + 1)), *tmp = xmalloc(sizeof(*a) * (n + 1));
	struct rec *out;
	unsigned char *seen = xcalloc(n + 1, 1);
	uint64_t x = 88172645463325252ull;

	for (size_t i = 0; i < n; i++) {
		a[i].key = keyf(&x, i);
		a[i].order = (uint32_t)i;
		a[i].before = (uint32_t)i ^ 0x5a5a5a5au;
	}
	out = radix_sort(a, tmp, n, sizeof(*a), offsetof(struct rec, key), bits);
	assert_true(out == a || out == tmp);
	assert_sorted(out, n);
	for (size_t i = 0; i < n; i++) {
		assert_false(seen[out[i].order]);
		seen[out[i].order] = 1;
	}
	free(seen);
	free(a);
	free(tmp);
}

static uint64_t
key_few(uint64_t *x, size_t i)
{
	(void)i;
	return next_rand(x) % 7; /* many ties: stability shows */
}

static uint64_t
key_wide(uint64_t *x, size_t i)
{
	(void)i;
	return next_rand(x); /* every byte differs somewhere */
}

static uint64_t
key_high(uint64_t *x, size_t i)
{
	(void)i;
	/* only the top bits differ: the passes below are skipped */
	return (next_rand(x) & 0xf000000000000000ull) | 0x1234;
}

static uint64_t
key_down(uint64_t *x, size_t i)
{
	(void)x;
	return UINT64_MAX - i / 3; /* descending, with runs of three */
}

static void
test_radix_large(void **state)
{
	(void)state;
	for (unsigned bits = 8; bits <= 16; bits += 3) {
		check_sort(5000, bits, key_few);
		check_sort(5000, bits, key_wide);
		check_sort(5000, bits, key_high);
		check_sort(5000, bits, key_down);
	}
}

/* Under RADIX_SMALL records: the insertion sort, as stable. */
static void
test_radix_small(void **state)
{
	(void)state;
	for (size_t n = 0; n < RADIX_SMALL + 3; n++) {
		check_sort(n, 8, key_few);
		check_sort(n, 11, key_wide);
		check_sort(n, 16, key_down);
	}
}

/* All keys equal: no pass at all, the records as they were, in base. */
static void
test_radix_equal(void **state)
{
	uint64_t v[100], tmp[100];

	(void)state;
	for (size_t i = 0; i < 100; i++)
		v[i] = 42;
	assert_ptr_equal(radix_sort(v, tmp, 100, sizeof(*v), 0, 8), v);
	for (size_t i = 0; i < 100; i++)
		assert_int_equal(v[i], 42);
}

/* Bare values, the key at offset 0, as the ELF index's name table sorts them. */
static void
test_radix_values(void **state)
{
	size_t n = 3000;
	uint64_t *v = xmalloc(sizeof(*v) * 2 * n), *out, x = 7;

	(void)state;
	for (size_t i = 0; i < n; i++)
		v[i] = next_rand(&x) >> (i % 40);
	out = radix_sort(v, v + n, n, sizeof(*v), 0, 8);
	for (size_t i = 1; i < n; i++)
		assert_true(out[i - 1] <= out[i]);
	free(v);
}

/* Small blocks from xmalloc(); from least on, whole huge pages, aligned. */
static void
test_malloc_huge(void **state)
{
	uint32_t *a;
	size_t n = (size_t)3 << 18; /* 3 MiB of uint32_t */

	(void)state;
	a = xmalloc_huge(100, sizeof(*a), (size_t)1 << 20);
	a[99] = 1;
	free(a);
	a = xmalloc_huge(0, sizeof(*a), 0);
	assert_non_null(a);
	free(a);
	a = xmalloc_huge(n, sizeof(*a), (size_t)1 << 20);
	assert_int_equal((uintptr_t)a % ((uintptr_t)2 << 20), 0);
	for (size_t i = 0; i < n; i++)
		a[i] = (uint32_t)i;
	/* It may still be shrunk with xrealloc(). */
	a = xreallocarray(a, 1000, sizeof(*a));
	for (size_t i = 0; i < 1000; i++)
		assert_int_equal(a[i], (uint32_t)i);
	free(a);
}

/*
 * THPeligible of the mapping holding p in /proc/self/smaps: 1 or 0, or -1
 * when smaps does not tell (no /proc, an old kernel).
 */
static int
thp_eligible(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	bool in = false;
	int v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		/* A mapping's first line; its fields ("Size:", ...) do not scan so. */
		if (sscanf(line, "%lx-%lx", &a, &b) == 2)
			in = a <= (uintptr_t)p && (uintptr_t)p < b;
		else if (in && sscanf(line, "THPeligible: %d", &v) == 1)
			break;
	}
	fclose(f);
	return v;
}

/* Does the kernel hand out huge pages where asked (THP "madvise")? */
static bool
thp_madvise_mode(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
	char line[128] = "";
	bool yes;

	if (!f)
		return false;
	yes = fgets(line, sizeof(line), f) && strstr(line, "[madvise]");
	fclose(f);
	return yes;
}

/* Is malloc() valgrind's (its preloaded library mapped), not libc's? */
static bool
under_valgrind(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, "vgpreload") != NULL;
	if (f)
		fclose(f);
	return found;
}

struct heap_growth {
	int eligible;      /* THPeligible of the last block, 16 MiB into the heap */
};

static void *
heap_grow_in_thread(void *arg)
{
	struct heap_growth *g = arg;
	enum { N = 256 };
	void *blocks[N];

	xheap_huge_pages();
	for (int i = 0; i < N; i++)
		memset(blocks[i] = malloc(64 << 10), 1, 64 << 10);
	g->eligible = thp_eligible(blocks[N - 1]);
	for (int i = 0; i < N; i++)
		free(blocks[i]);
	return NULL;
}

static void *
heap_in_thread(void *arg)
{
	struct heap_growth g = { -1 };

	heap_grow_in_thread(&g);
	*(int *)arg = g.eligible;
	return NULL;
}

/*
 * A thread's malloc() heap is advised: with THP only where asked, the
 * heap of a thread that did not ask is not eligible, and is once it did,
 * in a thread of its own and in the next one, which takes the same heap,
 * where the heap has grown to whole huge pages (16 MiB of blocks).
 * The sanitizers' allocator is left alone (xalloc.c), and valgrind's is
 * not malloc()'s heaps.
 */
static void
test_heap_huge_pages(void **state)
{
	pthread_t t;
	int eligible = -1;

	(void)state;
#if defined(__SANITIZE_ADDRESS__)
	skip();
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	skip();
#endif
#endif
	if (!thp_madvise_mode() || under_valgrind())
		skip();
	for (int i = 0; i < 2; i++) {
		/* The second thread takes the first one's heap: advised already. */
		eligible = -1;
		assert_int_equal(pthread_create(&t, NULL, heap_in_thread, &eligible), 0);
		assert_int_equal(pthread_join(t, NULL), 0);
		if (eligible < 0)
			skip();
		assert_int_equal(eligible, 1);
	}
}

/*
 * malloc()'s settings are its own: the heap grows by what it needs, where
 * a 64 MiB M_TOP_PAD made it grow 64 MiB at a time and keep that much in
 * every heap it trimmed (1 GB of perf script took 331 MB for report, not
 * 191). Blocks of 64 KiB (under any mmap threshold) until the main heap's
 * end moves: by less than 8 MiB.
 */
static void
test_heap_no_pad(void **state)
{
	enum { N = 4096 };
	void **blocks = calloc(N, sizeof(*blocks));
	char *end = sbrk(0), *now = end;
	int n = 0;

	(void)state;
	xheap_huge_pages();
	while (n < N && now == end) {
		blocks[n++] = malloc(64 << 10);
		now = sbrk(0);
	}
	for (int i = 0; i < n; i++)
		free(blocks[i]);
	free(blocks);
	if (now == end || now == (char *)-1 || under_valgrind())
		skip(); /* the heap is not brk()'s (a sanitizer's allocator) */
	assert_true(now > end);
	assert_true((size_t)(now - end) < ((size_t)8 << 20));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_radix_large),
		cmocka_unit_test(test_radix_small),
		cmocka_unit_test(test_radix_equal),
		cmocka_unit_test(test_radix_values),
		cmocka_unit_test(test_malloc_huge),
		cmocka_unit_test(test_heap_huge_pages),
		cmocka_unit_test(test_heap_no_pad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
