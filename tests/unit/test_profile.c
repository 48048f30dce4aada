#include "config.h"

#include "tflame/profile.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

#include "test_util.h"

static frame_id
mkframe(struct profile_set *ps, const char *name, const char *module)
{
	struct frame f = { 0 };

	f.name = ps_str(ps, name, strlen(name));
	f.module = ps_str(ps, module, strlen(module));
	return profile_set_frame(ps, &f);
}

/* Names of one function: aliases, versions, clones (profile_same_function()). */
static void
test_same_function(void **state)
{
	static const char *const same[][2] = {
		{ "_IO_default_xsputn", "__GI__IO_default_xsputn" },
		{ "__snprintf", "__GI___snprintf" },
		{ "msort_with_tmp", "msort_with_tmp.part.0" },
		{ "sortrec.constprop.0", "sortrec" },
		{ "f.isra.0", "f.cold" },
		{ "__libc_start_main@@GLIBC_2.34", "__libc_start_main" },
		{ "malloc", "__libc_malloc" },
		{ "memcpy@plt", "memcpy" },
		{ "ns::f(int) [clone .part.0]", "ns::f(int)" },
		{ "___", "___" },
	};
	static const char *const other[][2] = {
		{ "__libc_start_main_impl", "__libc_start_main@@GLIBC_2.34" },
		{ "outstring_func", "__vfprintf_internal" },
		{ "__GI__Fork", "__libc_fork" },
		{ "___", "_" },
		{ "f", "g" },
		{ "", "_" },
		{ "std::vector<int>::at(unsigned long) const", "std::vector<int>::at" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		const char *a = same[i][0], *b = same[i][1];

		if (!profile_same_function(a, strlen(a), b, strlen(b)) ||
		    !profile_same_function(b, strlen(b), a, strlen(a)))
			fail_msg("%s and %s should be one function", a, b);
		assert_int_equal(profile_function_key(a, strlen(a)),
				 profile_function_key(b, strlen(b)));
	}
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		const char *a = other[i][0], *b = other[i][1];

		if (profile_same_function(a, strlen(a), b, strlen(b)))
			fail_msg("%s and %s should be two functions", a, b);
		assert_int_not_equal(profile_function_key(a, strlen(a)),
				     profile_function_key(b, strlen(b)));
	}
}

static void
test_new_set_is_consistent(void **state)
{
	struct profile_set *ps = profile_set_new();

	(void)state;
	assert_int_equal(ps->nr_stacks, 1);
	assert_int_equal(ps->stacks[STACK_ROOT].depth, 0);
	assert_int_equal(ps->nr_frames, 0);
	assert_int_equal(ps->nr_profiles, 0);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_frames_interned_on_identity(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct frame f = { 0 }, g;
	frame_id a, b;

	(void)state;
	a = mkframe(ps, "main", "/bin/x");
	b = mkframe(ps, "main", "/bin/x");
	assert_int_equal(a, b);
	assert_int_not_equal(mkframe(ps, "main", "/bin/y"), a);
	f = ps->frames[a];
	g = f;
	g.line = 12;
	g.flags = FRAME_HAS_LINE;
	assert_int_not_equal(profile_set_frame(ps, &g), a);
	g = f;
	g.flags = FRAME_INLINED;
	assert_int_not_equal(profile_set_frame(ps, &g), a);
	g = f;
	g.addr = 0x1234;
	assert_int_not_equal(profile_set_frame(ps, &g), a);
	assert_int_equal(profile_set_frame(ps, &f), a);
	assert_int_equal(ps->nr_frames, 5);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_stacks_share_prefixes(void **state)
{
	struct profile_set *ps = profile_set_new();
	frame_id m = mkframe(ps, "main", ""), f = mkframe(ps, "f", ""), g = mkframe(ps, "g", "");
	stack_id sm, smf, smg, smf2;

	(void)state;
	sm = profile_set_stack(ps, STACK_ROOT, m);
	smf = profile_set_stack(ps, sm, f);
	smg = profile_set_stack(ps, sm, g);
	smf2 = profile_set_stack(ps, sm, f);
	assert_int_equal(smf, smf2);
	assert_int_not_equal(smf, smg);
	assert_int_equal(ps->stacks[smf].parent, sm);
	assert_int_equal(ps->stacks[smf].depth, 2);
	assert_int_equal(ps->stacks[sm].depth, 1);
	/* The same frame under another parent is another stack. */
	assert_int_not_equal(profile_set_stack(ps, STACK_ROOT, f), smf);
	assert_int_equal(ps->nr_stacks, 5);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_many_stacks_grow_tables(void **state)
{
	struct profile_set *ps = profile_set_new();
	frame_id f = mkframe(ps, "rec", "");
	stack_id s = STACK_ROOT;

	(void)state;
	for (int i = 0; i < 100000; i++)
		s = profile_set_stack(ps, s, f);
	assert_int_equal(ps->stacks[s].depth, 100000);
	assert_int_equal(ps->nr_stacks, 100001);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_threads(void **state)
{
	struct profile_set *ps = profile_set_new();
	str_id comm = ps_str(ps, "xz", 2), other = ps_str(ps, "perf-exec", 9);
	thread_id a = profile_set_thread(ps, 10, 11, comm);

	(void)state;
	assert_int_equal(profile_set_thread(ps, 10, 11, comm), a);
	assert_int_not_equal(profile_set_thread(ps, 10, 11, other), a);
	assert_int_not_equal(profile_set_thread(ps, -1, 11, comm), a);
	assert_int_equal(ps->threads[a].pid, 10);
	assert_int_equal(ps->nr_threads, 3);
	check_profile_set(ps);
	profile_set_free(ps);
}

/* A tid that exec'd: one thread, its names in order of first appearance. */
static void
test_thread_names(void **state)
{
	struct profile_set *ps = profile_set_new(), *dst = profile_set_new();
	str_id sh = ps_str(ps, "sh", 2), py = ps_str(ps, "python3", 7);
	thread_id a = profile_set_thread(ps, 10, 10, sh);
	thread_id worker = profile_set_thread(ps, 10, 12, py);
	thread_id b = profile_set_thread(ps, 10, 10, py);
	thread_id c = profile_set_thread(ps, 10, 10, STR_EMPTY);
	thread_id anon1 = profile_set_thread(ps, -1, -1, sh);
	thread_id anon2 = profile_set_thread(ps, -1, -1, py);
	thread_id other_pid = profile_set_thread(ps, 11, 10, py);
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(profile_set_thread(ps, 10, 10, py), b);
	assert_int_equal(ps_thread(ps, a), a);
	assert_int_equal(ps_thread(ps, b), a);
	assert_int_equal(ps_thread(ps, c), a);
	assert_int_equal(ps_thread(ps, worker), worker);
	/* Without a tid, a name is a thread; another pid is another thread. */
	assert_int_equal(ps_thread(ps, anon2), anon2);
	assert_int_equal(ps_thread(ps, anon1), anon1);
	assert_int_equal(ps_thread(ps, other_pid), other_pid);
	assert_int_equal(ps->threads[a].next, b);
	assert_int_equal(ps->threads[b].next, c);
	assert_int_equal(ps->threads[c].next, THREAD_NONE);

	/* Its last name (the empty one is none), and all of them, from any entry. */
	assert_int_equal(profile_thread_comm(ps, c), py);
	assert_int_equal(profile_thread_comm(ps, a), py);
	profile_thread_names(ps, c, "->", &sb);
	assert_string_equal(sb.buf, "sh->python3");
	strbuf_reset(&sb);
	profile_thread_names(ps, worker, "->", &sb);
	assert_string_equal(sb.buf, "python3");
	check_profile_set(ps);

	/* sh again after python3 is the sh entry: a third name is another one. */
	assert_int_equal(profile_set_thread(ps, 10, 10, sh), a);
	profile_set_thread(ps, 10, 10, ps_str(ps, "bash", 4));
	strbuf_reset(&sb);
	profile_thread_names(ps, b, "\xe2\x86\x92", &sb);
	assert_string_equal(sb.buf, "sh\xe2\x86\x92" "python3\xe2\x86\x92" "bash");

	/* A merge keeps the thread whole, in the same order. */
	assert_int_equal(profile_set_merge(dst, ps, 0, &err), 0);
	for (thread_id t = 0; t < dst->nr_threads; t++)
		if (dst->threads[t].tid == 10 && dst->threads[t].pid == 10) {
			strbuf_reset(&sb);
			profile_thread_names(dst, t, "->", &sb);
			assert_string_equal(sb.buf, "sh->python3->bash");
		}
	check_profile_set(dst);
	strbuf_release(&sb);
	profile_set_free(ps);
	profile_set_free(dst);
}

/* The check catches a thread linked to another thread's names. */
static void
test_check_catches_bad_thread_link(void **state)
{
	struct profile_set *ps = profile_set_new();
	thread_id a = profile_set_thread(ps, 1, 1, ps_str(ps, "a", 1));
	thread_id b = profile_set_thread(ps, 1, 2, ps_str(ps, "b", 1));
	struct tf_error err = TF_ERROR_INIT;

	(void)state;
	ps->threads[a].next = b;
	assert_int_equal(profile_set_check(ps, &err), -1);
	tf_error_release(&err);
	ps->threads[a].next = THREAD_NONE;
	ps->threads[b].first = a;
	assert_int_equal(profile_set_check(ps, &err), -1);
	tf_error_release(&err);
	profile_set_free(ps);
}

static void
test_samples_totals_and_time(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	thread_id t = profile_set_thread(ps, 1, 1, STR_EMPTY);
	struct tf_error err = TF_ERROR_INIT;

	(void)state;
	assert_ptr_equal(profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_SAMPLES), p);
	assert_int_equal(p->unit, UNIT_EVENTS);
	assert_int_equal(profile_add_sample(p, STACK_ROOT, 5, 300, true, t, &err), 0);
	assert_int_equal(profile_add_sample(p, STACK_ROOT, 7, 100, true, t, &err), 0);
	assert_int_equal(profile_add_sample(p, STACK_ROOT, 1, 0, false, t, &err), 0);
	assert_int_equal(p->nr_samples, 3);
	assert_int_equal(p->total_weight, 13);
	assert_true(p->has_time);
	assert_int_equal(p->time_min, 100);
	assert_int_equal(p->time_max, 300);
	/* A total past 64 bits is exact. */
	assert_int_equal(profile_add_sample(p, STACK_ROOT, UINT64_MAX, 0, false, t, &err), 0);
	assert_int_equal(p->nr_samples, 4);
	assert_true(p->total_weight == (weight_sum)UINT64_MAX + 13);
	assert_ptr_equal(profile_set_find_profile(ps, "cycles"), p);
	assert_null(profile_set_find_profile(ps, "instructions"));
	assert_int_equal(profile_set_profile_index(ps, p), 0);
	check_profile_set(ps);
	tf_error_release(&err);
	profile_set_free(ps);
}

/* The text of one profile_format_*() call, for the assertions below. */
static const char *
amount(const struct profile *p, uint64_t w, int how)
{
	static struct strbuf sb = STRBUF_INIT;

	strbuf_reset(&sb);
	if (how == 0)
		profile_format_amount(p, w, &sb);
	else if (how == 1)
		profile_format_amount_short(p, w, &sb);
	else
		profile_format_weight(p, w, &sb);
	return sb.buf;
}

/*
 * A total past 64 bits: the views' shift is the least that brings the
 * rounded weights below 2^63, a weight keeps at least 1, and the amounts
 * of the scaled copy print back in the input's units, rounded to what the
 * scaled sums know. Exact values by hand: 2^64 - 1 + 2^64 - 1 + 5 =
 * 2^65 + 3; shifted by 3, (2^64 - 1) / 8 rounds to 2^61, 5 / 8 to 1, the
 * sum is 2^62 + 1 < 2^63 (by 2 it would be 2^63 + 2); three samples off
 * by less than 8 each: within 24, rounded to 100s.
 */
static void
test_wide_shift(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, STR_EMPTY, UNIT_NONE);
	thread_id t = profile_set_thread(ps, 1, 1, STR_EMPTY);
	struct tf_error err = TF_ERROR_INIT;
	struct profile q;
	weight_sum unit, v;

	(void)state;
	assert_int_equal(profile_add_sample(p, STACK_ROOT, 5, 0, false, t, &err), 0);
	assert_int_equal(profile_wide_shift(p), 0); /* fits 64 bits: no copy */
	assert_int_equal(profile_add_sample(p, STACK_ROOT, UINT64_MAX, 0, false, t, &err), 0);
	assert_int_equal(profile_add_sample(p, STACK_ROOT, UINT64_MAX, 0, false, t, &err), 0);
	assert_int_equal(profile_wide_shift(p), 3);

	assert_int_equal(profile_shift_weight(UINT64_MAX, 3), (uint64_t)1 << 61);
	assert_int_equal(profile_shift_weight(12, 3), 2);  /* 1.5: halves up */
	assert_int_equal(profile_shift_weight(11, 3), 1);  /* 1.375 */
	assert_int_equal(profile_shift_weight(3, 3), 1);   /* 0.375, but no sample goes */
	assert_int_equal(profile_shift_weight(0, 3), 0);
	assert_int_equal(profile_shift_weight(UINT64_MAX, 65), 1);
	assert_int_equal(profile_shift_weight(7, 0), 7);

	/* The views' copy. */
	q = *p;
	q.weight_shift = 3;
	v = profile_unscale(&q, ((uint64_t)1 << 62) + 1, &unit);
	assert_true(unit == 100);
	/* (2^62 + 1) * 8 = 36893488147419103240; the exact sum is ...235. */
	assert_true(v == (weight_sum)36893488147419103ULL * 1000 + 200);
	assert_string_equal(amount(&q, ((uint64_t)1 << 62) + 1, 0), "~36,893,488,147,419,103,200");
	assert_string_equal(amount(&q, ((uint64_t)1 << 62) + 1, 1), "36.9 E");
	assert_string_equal(amount(&q, ((uint64_t)1 << 62) + 1, 2), "36893488147419103200");
	assert_string_equal(amount(&q, (uint64_t)1 << 61, 0), "~18,446,744,073,709,551,600");
	/* d's 5, scaled to 1: 8, within 24: nothing known but that it is small. */
	assert_string_equal(amount(&q, 1, 0), "~0");
	assert_string_equal(amount(&q, 1, 1), "~0");
	assert_string_equal(amount(&q, 0, 0), "0");
	assert_string_equal(amount(&q, 0, 1), "0");
	/* 1000 * 8 = 8000: two known digits, so "~" in the short form too; 10000 has three. */
	assert_string_equal(amount(&q, 1000, 1), "~8.00 k");
	assert_string_equal(amount(&q, 1250, 1), "10.0 k");
	assert_string_equal(amount(&q, 125000, 1), "1.00 M");
	/* A time: three significant digits of the rounded amount. */
	q.unit = UNIT_NANOSECONDS;
	assert_string_equal(amount(&q, 125000, 0), "1.00 ms");
	assert_string_equal(amount(&q, 1, 0), "~0 s");
	/* With 2 decimals the unit is 100 hundredths: 125000 * 8 / 100 = 10000. */
	q.unit = UNIT_NONE;
	q.weight_decimals = 2;
	assert_string_equal(amount(&q, 125000, 0), "~10,000");
	/* 10000.08 known to units: the hundredths are not. */
	assert_string_equal(amount(&q, 125001, 2), "10000");
	check_profile_set(ps);
	tf_error_release(&err);
	profile_set_free(ps);
}

/* Peak resident bytes of this process (VmHWM); 0 when unknown. */
static size_t
peak_resident(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long kb = 0;

	while (f && fgets(line, sizeof(line), f) && sscanf(line, "VmHWM: %lu kB", &kb) != 1)
		;
	if (f)
		fclose(f);
	return (size_t)kb << 10;
}

/* Start the peak over from what is resident now (Linux 4.0); false if it cannot. */
static bool
reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "we");
	bool ok;

	if (!f)
		return false;
	ok = fputs("5", f) >= 0;
	return fclose(f) == 0 && ok;
}

/* Is malloc() valgrind's or a sanitizer's (realloc() copying by design)? */
static bool
malloc_not_libc(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	bool found = false;

#if defined(__SANITIZE_ADDRESS__)
	found = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
	found = true;
#endif
#endif
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, "vgpreload") != NULL;
	if (f)
		fclose(f);
	return found;
}

/*
 * A profile's sample arrays grow in place, never held twice: past 8 M
 * samples (arrays of 32 to 64 MiB, glibc's own mappings), the doubling to
 * 16 M and the next million samples raise the peak by about what those
 * samples take, where copying into fresh blocks took all of the old
 * arrays' 192 MiB more (1 GB of perf script: report 331 MB, 191 before).
 * Every sample is still there after the growths.
 */
static void
test_grow_samples_in_place(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	thread_id t = profile_set_thread(ps, 1, 1, STR_EMPTY);
	bool libc = !malloc_not_libc(), measured;
	/* Under valgrind, a smaller set: only the contents are checked there. */
	size_t n = libc ? (size_t)8 << 20 : (size_t)1 << 20, mib = (size_t)1 << 20, before = 0;
	size_t after;
	struct tf_error err = TF_ERROR_INIT;

	(void)state;
	for (size_t i = 0; i < n; i++)
		assert_int_equal(profile_add_sample(p, STACK_ROOT, i, (int64_t)i, true,
						    t, &err), 0);
	assert_int_equal(p->alloc_samples, n);
	measured = libc && reset_peak() && (before = peak_resident());
	for (size_t i = n; i < n + mib; i++)
		assert_int_equal(profile_add_sample(p, STACK_ROOT, i, (int64_t)i, true,
						    t, &err), 0);
	after = peak_resident();
	assert_int_equal(p->alloc_samples, 2 * n);
	if (measured)
		assert_true(after < before + 64 * mib);
	for (size_t i = 0; i < n + mib; i += 4099) {
		assert_int_equal(p->stack[i], STACK_ROOT);
		assert_int_equal(p->weight[i], i);
		assert_int_equal(p->time[i], (int64_t)i);
		assert_int_equal(p->thread[i], t);
	}
	tf_error_release(&err);
	profile_set_free(ps);
}

/*
 * xgrow_pages(): under 4 MiB as realloc() grows, then pages of its own on
 * a huge page's edge, the elements kept at each growth, the same block
 * while the pages it has hold the new size.
 */
static void
test_grow_pages(void **state)
{
	uint32_t *a = NULL, *b;
	size_t alloc = 0, held = xpages_held();

	(void)state;
	for (size_t n = 1000; n <= ((size_t)3 << 20); n = n * 3 + 7) {
		a = xgrow_pages(a, alloc, n, sizeof(*a));
		for (size_t i = 0; i < alloc; i++)
			assert_int_equal(a[i], (uint32_t)(i * 2654435761u));
		if (n * sizeof(*a) >= ((size_t)4 << 20))
			assert_int_equal((uintptr_t)a % ((uintptr_t)2 << 20), 0);
		for (size_t i = alloc; i < n; i++)
			a[i] = (uint32_t)(i * 2654435761u);
		alloc = n;
	}
	/* Room for a few more in its last huge page: not moved. */
	b = xgrow_pages(a, alloc, alloc + 16, sizeof(*a));
	assert_ptr_equal(a, b);
	assert_int_equal(b[alloc - 1], (uint32_t)((alloc - 1) * 2654435761u));
	b[alloc + 15] = 1;
	/* Whole huge pages, counted while held. */
	assert_int_equal(xpages_held() - held,
			 (alloc * sizeof(*b) + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1));
	xfree_pages(b, alloc + 16, sizeof(*b));
	assert_int_equal(xpages_held(), held);
	/* From nothing straight to pages, and a small one freed the same way. */
	a = xgrow_pages(NULL, 0, (size_t)2 << 20, sizeof(*a));
	a[((size_t)2 << 20) - 1] = 3;
	xfree_pages(a, (size_t)2 << 20, sizeof(*a));
	a = xgrow_pages(NULL, 0, 10, sizeof(*a));
	a[9] = 3;
	xfree_pages(a, 10, sizeof(*a));
}

/* How many of the pages of [p, p + bytes) are in memory, untouched by asking. */
static size_t
resident_pages(void *p, size_t bytes)
{
	size_t n = bytes / 4096, in = 0;
	unsigned char *vec = malloc(n);

	assert_int_equal(mincore(p, bytes, vec), 0);
	for (size_t i = 0; i < n; i++)
		in += vec[i] & 1;
	free(vec);
	return in;
}

/*
 * Pages xfree_pages() lets go are kept, and the next xgrow_pages() block
 * or growth takes them: in memory before it writes a byte (a fresh
 * mapping would have none), the grown block's old elements kept.
 */
static void
test_grow_pages_pool(void **state)
{
	size_t mib = (size_t)1 << 20, drained = xpages_pooled(), pooled;
	/* What earlier tests left in the pool, taken first: it starts empty. */
	char *d = drained ? xgrow_pages(NULL, 0, drained, 1) : NULL;
	uint32_t *a = xgrow_pages(NULL, 0, 8 * mib / 4, sizeof(*a)), *b;

	(void)state;
	pooled = xpages_pooled();
	assert_int_equal(pooled, 0);
	memset(a, 1, 8 * mib);
	xfree_pages(a, 8 * mib / 4, sizeof(*a));
	assert_int_equal(xpages_pooled(), pooled + 8 * mib);
	/* A new block: the pool's pages, written before. */
	b = xgrow_pages(NULL, 0, 6 * mib / 4, sizeof(*b));
	assert_int_equal(xpages_pooled(), pooled + 2 * mib);
	assert_int_equal(resident_pages(b, 6 * mib), 6 * mib / 4096);
	for (size_t i = 0; i < 6 * mib / 4; i++)
		b[i] = (uint32_t)i;
	/* A growth: the old pages moved, the new end the pool's last 2 MiB. */
	b = xgrow_pages(b, 6 * mib / 4, 8 * mib / 4, sizeof(*b));
	assert_int_equal(xpages_pooled(), pooled);
	assert_int_equal(resident_pages(b, 8 * mib), 8 * mib / 4096);
	for (size_t i = 0; i < 6 * mib / 4; i += 4099)
		assert_int_equal(b[i], (uint32_t)i);
	/* The pool empty, a growth's new end is fresh. */
	b = xgrow_pages(b, 8 * mib / 4, 12 * mib / 4, sizeof(*b));
	assert_int_equal(resident_pages(b, 8 * mib), 8 * mib / 4096);
	assert_int_equal(resident_pages((char *)b + 8 * mib, 4 * mib), 0);
	assert_int_equal(b[6 * mib / 4 - 1], (uint32_t)(6 * mib / 4 - 1));
	xfree_pages(b, 12 * mib / 4, sizeof(*b));
	assert_int_equal(xpages_pooled(), pooled + 12 * mib);
	xfree_pages(d, drained, 1);
}

/*
 * A block the pool filled from pieces of two blocks is several mappings,
 * which mremap() does not move as one (before Linux 6.17): growing it
 * again must still move every piece, contents and all. This died with
 * "out of memory" when the call tree of a 4.8 M-stack profile grew a
 * second time.
 */
static void
test_grow_pages_pieces(void **state)
{
	size_t mib = (size_t)1 << 20, drained = xpages_pooled();
	char *d = drained ? xgrow_pages(NULL, 0, drained, 1) : NULL;
	char *x = xgrow_pages(NULL, 0, 4 * mib, 1), *y = xgrow_pages(NULL, 0, 4 * mib, 1);
	uint32_t *a;
	size_t n = mib / 4;

	(void)state;
	assert_int_equal(xpages_pooled(), 0);
	memset(x, 1, 4 * mib);
	memset(y, 2, 4 * mib);
	xfree_pages(x, 4 * mib, 1);
	xfree_pages(y, 4 * mib, 1);
	/* y's 4 MiB, then 2 of x's: two mappings. */
	a = xgrow_pages(NULL, 0, 6 * n, sizeof(*a));
	assert_int_equal(xpages_pooled(), 2 * mib);
	for (size_t i = 0; i < 6 * n; i++)
		a[i] = (uint32_t)(i * 2654435761u);
	/* Moved as pieces, and grown by the rest of x and fresh pages. */
	a = xgrow_pages(a, 6 * n, 12 * n, sizeof(*a));
	assert_int_equal(xpages_pooled(), 0);
	for (size_t i = 0; i < 6 * n; i++)
		assert_int_equal(a[i], (uint32_t)(i * 2654435761u));
	a[12 * n - 1] = 7;
	assert_int_equal(a[12 * n - 1], 7);
	/* Three mappings in the pool: they move out of it the same way. */
	xfree_pages(a, 12 * n, sizeof(*a));
	assert_int_equal(xpages_pooled(), 12 * mib);
	a = xgrow_pages(NULL, 0, 12 * n, sizeof(*a));
	assert_int_equal(xpages_pooled(), 0);
	assert_int_equal(a[6 * n - 1], (uint32_t)((6 * n - 1) * 2654435761u));
	assert_int_equal(a[12 * n - 1], 7);
	xfree_pages(a, 12 * n, sizeof(*a));
	xfree_pages(d, drained, 1);
}

/*
 * A reservation keeps the samples there are, and the samples added up to
 * it go in without moving the arrays; past it they grow as before.
 */
static void
test_reserve_samples(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	thread_id t = profile_set_thread(ps, 1, 1, STR_EMPTY);
	stack_id s = profile_set_stack(ps, STACK_ROOT, mkframe(ps, "main", "a"));
	const size_t n = 300000;
	uint64_t *weight;

	(void)state;
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(profile_add_sample(p, s, i + 1, (int64_t)i, true, t, NULL), 0);
	profile_reserve_samples(p, n);
	assert_int_equal(p->alloc_samples, n);
	assert_int_equal(p->nr_samples, 10);
	for (size_t i = 0; i < 10; i++) {
		assert_int_equal(p->weight[i], i + 1);
		assert_int_equal(p->time[i], (int64_t)i);
	}
	weight = p->weight;
	for (size_t i = 10; i < n; i++)
		assert_int_equal(profile_add_sample(p, s, i + 1, (int64_t)i, true, t, NULL), 0);
	assert_ptr_equal(p->weight, weight);
	/* A smaller reservation changes nothing. */
	profile_reserve_samples(p, 5);
	assert_ptr_equal(p->weight, weight);
	assert_int_equal(p->nr_samples, n);
	assert_int_equal(profile_add_sample(p, s, 1, 0, true, t, NULL), 0);
	assert_int_equal(p->nr_samples, n + 1);
	assert_int_equal(p->weight[n - 1], n);
	assert_int_equal(p->total_weight, (uint64_t)n * (n + 1) / 2 + 1);
	profile_set_free(ps);
}

static void
test_big_sample_arrays_keep_samples(void **state)
{
	const size_t n = (size_t)1 << 20; /* 8 MiB of weights */
	struct profile_set *a = profile_set_new(), *b = profile_set_new();
	struct profile *pa = profile_set_profile(a, ps_str(a, "cycles", 6), UNIT_EVENTS);
	struct profile *pb = profile_set_profile(b, ps_str(b, "cycles", 6), UNIT_EVENTS);
	thread_id ta = profile_set_thread(a, 1, 1, STR_EMPTY);
	thread_id tb0 = profile_set_thread(b, 2, 2, STR_EMPTY);
	thread_id tb1 = profile_set_thread(b, 1, 1, STR_EMPTY);
	stack_id sa = profile_set_stack(a, STACK_ROOT, mkframe(a, "main", "a"));
	stack_id sb = profile_set_stack(b, STACK_ROOT, mkframe(b, "run", "b"));
	struct tf_error err = TF_ERROR_INIT;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(profile_add_sample(pa, i & 1 ? sa : STACK_ROOT, i + 1,
						    (int64_t)i, true, ta, &err), 0);
		assert_int_equal(profile_add_sample(pb, i & 1 ? sb : STACK_ROOT, i + 1,
						    (int64_t)(n + i), true, i & 1 ? tb1 : tb0, &err),
				 0);
	}
	assert_int_equal(pa->nr_samples, n);
	assert_true(pa->alloc_samples >= n);
	/*
	 * A parallel perf load: the loader marks the set it fills, before any
	 * format; the ranges it merges in say nothing, and must not unmark it.
	 */
	a->perf_script = true;
	assert_int_equal(profile_set_merge(a, b, 0, &err), 0);
	assert_true(a->perf_script);
	assert_int_equal(pa->nr_samples, 2 * n);
	assert_int_equal(pa->total_weight, (uint64_t)n * (n + 1));
	for (size_t i = 0; i < 2 * n; i++) {
		size_t k = i % n;
		stack_id s = pa->stack[i];

		assert_int_equal(pa->weight[i], k + 1);
		assert_int_equal(pa->time[i], (int64_t)i);
		if (!(k & 1)) {
			assert_int_equal(s, STACK_ROOT);
			assert_int_equal(a->threads[pa->thread[i]].pid, i < n ? 1 : 2);
			continue;
		}
		assert_int_equal(a->threads[pa->thread[i]].pid, 1);
		assert_string_equal(ps_get(a, a->frames[a->stacks[s].frame].name),
				    i < n ? "main" : "run");
	}
	assert_int_equal(pa->time_max, (int64_t)(2 * n - 1));
	check_profile_set(a);
	check_profile_set(b);
	tf_error_release(&err);
	profile_set_free(a);
	profile_set_free(b);
}

static struct profile *
add_profile(struct profile_set *ps, const char *name)
{
	return profile_set_profile(ps, ps_str(ps, name, strlen(name)), UNIT_SAMPLES);
}

/* --event: a whole name, or a part of one between colons if only one has it. */
static void
test_find_event(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *sw = add_profile(ps, "sched:sched_switch");
	struct profile *ex = add_profile(ps, "sched:sched_process_exec");
	struct profile *cu = add_profile(ps, "cpu-clock:u");
	struct profile *ck = add_profile(ps, "cpu-clock:k");
	struct profile *cy = add_profile(ps, "cycles");
	struct profile *cyu = add_profile(ps, "cycles:u");
	struct profile *p = NULL;

	(void)state;
	/* Whole names, and the parts that --event takes. */
	assert_true(profile_event_named(ps, sw, "sched:sched_switch"));
	assert_true(profile_event_named(ps, sw, "sched_switch"));
	assert_true(profile_event_named(ps, sw, "sched"));
	assert_true(profile_event_named(ps, cu, "cpu-clock"));
	/* Not a part: cut inside one, or a colon left over. */
	assert_false(profile_event_named(ps, sw, "switch"));
	assert_false(profile_event_named(ps, sw, "sched:"));
	assert_false(profile_event_named(ps, sw, ":sched_switch"));
	assert_false(profile_event_named(ps, sw, "sched_switc"));
	assert_false(profile_event_named(ps, cu, "cpu"));
	assert_false(profile_event_named(ps, cu, ""));

	assert_int_equal(profile_set_find_event(ps, "sched_switch", &p), 1);
	assert_ptr_equal(p, sw);
	assert_int_equal(profile_set_find_event(ps, "sched_process_exec", &p), 1);
	assert_ptr_equal(p, ex);
	assert_int_equal(profile_set_find_event(ps, "cpu-clock:k", &p), 1);
	assert_ptr_equal(p, ck);
	/* The whole name wins over the parts of others. */
	assert_int_equal(profile_set_find_event(ps, "cycles", &p), 1);
	assert_ptr_equal(p, cy);
	assert_int_equal(profile_set_find_event(ps, "cycles:u", &p), 1);
	assert_ptr_equal(p, cyu);
	/* Ambiguous: how many, and none chosen. */
	assert_int_equal(profile_set_find_event(ps, "cpu-clock", &p), 2);
	assert_null(p);
	assert_int_equal(profile_set_find_event(ps, "sched", &p), 2);
	assert_null(p);
	/* u is a part of two names. */
	assert_int_equal(profile_set_find_event(ps, "u", &p), 2);
	assert_null(p);
	/* Absent. */
	assert_int_equal(profile_set_find_event(ps, "instructions", &p), 0);
	assert_null(p);
	assert_int_equal(profile_set_find_event(ps, "", &p), 0);
	assert_null(p);
	profile_set_free(ps);
}

static void
test_decimals_exact(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, STR_EMPTY, UNIT_NONE);
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	profile_add_sample(p, STACK_ROOT, 3, 0, false, 0, &err);
	profile_set_thread(ps, -1, -1, STR_EMPTY);
	assert_int_equal(profile_set_decimals(p, 2, &err), 0);
	assert_int_equal(p->weight[0], 300);
	profile_add_sample(p, STACK_ROOT, 5, 0, false, 0, &err); /* 0.05 */
	assert_int_equal(p->total_weight, 305);
	profile_format_weight(p, p->total_weight, &sb);
	assert_string_equal(sb.buf, "3.05");
	strbuf_reset(&sb);
	profile_format_weight(p, 150, &sb);
	assert_string_equal(sb.buf, "1.5");
	strbuf_reset(&sb);
	profile_format_weight(p, 200, &sb);
	assert_string_equal(sb.buf, "2");
	/* Fewer decimals than now is a no-op. */
	assert_int_equal(profile_set_decimals(p, 1, &err), 0);
	assert_int_equal(p->weight_decimals, 2);
	assert_int_equal(profile_set_decimals(p, 19, &err), -1);
	check_profile_set(ps);
	strbuf_release(&sb);
	tf_error_release(&err);
	profile_set_free(ps);
}

/* One amount of a profile of unit and decimals, exact or short. */
static void
check_amount(enum weight_unit unit, unsigned decimals, uint64_t w, bool exact,
	     const char *want)
{
	struct profile p = { .unit = unit, .weight_decimals = decimals };
	struct strbuf sb = STRBUF_INIT;

	if (exact)
		profile_format_amount(&p, w, &sb);
	else
		profile_format_amount_short(&p, w, &sb);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

static void
test_format_amount(void **state)
{
	(void)state;
	/* Times: three significant digits in both styles, "0 s" for nothing. */
	check_amount(UNIT_NANOSECONDS, 0, 0, true, "0 s");
	check_amount(UNIT_NANOSECONDS, 0, 0, false, "0 s");
	check_amount(UNIT_NANOSECONDS, 0, 5, true, "5 ns");
	check_amount(UNIT_NANOSECONDS, 0, 999, true, "999 ns");
	check_amount(UNIT_NANOSECONDS, 0, 989000, true, "989 us");
	check_amount(UNIT_NANOSECONDS, 0, 98900, true, "98.9 us");
	check_amount(UNIT_NANOSECONDS, 0, 9890, false, "9.89 us");
	check_amount(UNIT_NANOSECONDS, 0, 1000, true, "1.00 us");
	/* 999.7 us rounds up to the next unit, not to "1000 us". */
	check_amount(UNIT_NANOSECONDS, 0, 999700, true, "1.00 ms");
	check_amount(UNIT_NANOSECONDS, 0, 999400, true, "999 us");
	check_amount(UNIT_NANOSECONDS, 0, 189419000, true, "189 ms");
	check_amount(UNIT_NANOSECONDS, 0, 1514000000, true, "1.51 s");
	check_amount(UNIT_NANOSECONDS, 0, 1234000000000ULL, true, "1234 s");
	/* A time with decimals of a nanosecond. */
	check_amount(UNIT_NANOSECONDS, 3, 1500, true, "1.50 ns");
	/* Counts: exact with separators, or SI-scaled. */
	check_amount(UNIT_EVENTS, 0, 0, true, "0");
	check_amount(UNIT_EVENTS, 0, 0, false, "0");
	check_amount(UNIT_EVENTS, 0, 999, false, "999");
	check_amount(UNIT_EVENTS, 0, 1000, false, "1.00 k");
	check_amount(UNIT_EVENTS, 0, 999999, false, "1.00 M");
	check_amount(UNIT_EVENTS, 0, 62123456789ULL, false, "62.1 G");
	check_amount(UNIT_EVENTS, 0, 62123456789ULL, true, "62,123,456,789");
	check_amount(UNIT_SAMPLES, 0, 330829, true, "330,829");
	check_amount(UNIT_SAMPLES, 0, 330829, false, "331 k");
	check_amount(UNIT_OBJECTS, 0, 330829, true, "330,829");
	check_amount(UNIT_OBJECTS, 0, 330829, false, "331 k");
	assert_string_equal(weight_unit_name(UNIT_OBJECTS), "objects");
	check_amount(UNIT_NONE, 0, UINT64_MAX, false, "18.4 E");
	check_amount(UNIT_NONE, 0, UINT64_MAX, true, "18,446,744,073,709,551,615");
	/* Decimals: exact as written, or three digits. */
	check_amount(UNIT_NONE, 2, 123450, true, "1,234.5");
	check_amount(UNIT_NONE, 2, 123450, false, "1.23 k");
	check_amount(UNIT_NONE, 2, 1250, false, "12.5");
	check_amount(UNIT_NONE, 2, 25, false, "0.25");
	check_amount(UNIT_NONE, 2, 25, true, "0.25");
	/* Bytes: binary prefixes where space is short. */
	check_amount(UNIT_BYTES, 0, 512, false, "512 B");
	check_amount(UNIT_BYTES, 0, 1536, false, "1.50 KiB");
	check_amount(UNIT_BYTES, 0, 65142784, false, "62.1 MiB");
	check_amount(UNIT_BYTES, 0, 65142784, true, "65,142,784");
}

static void
check_share(uint64_t part, uint64_t whole, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(profile_format_share(part, whole, &sb), want != NULL);
	assert_string_equal(sb.buf, want ? want : "");
	strbuf_release(&sb);
}

static void
test_format_share(void **state)
{
	(void)state;
	check_share(0, 0, NULL);
	check_share(0, 10, "0%");
	check_share(10, 10, "100%");
	check_share(1, 3, "33.3%");
	check_share(1, 10000, "<0.1%");
	check_share(5, 10000, "0.1%");
	check_share(9999, 10000, "99.9%");
	check_share(99999, 100000, "99.9%");
}

static void
build_one(struct profile_set *ps, const char *event, const char *const *names, int n,
	  uint64_t w, const char *comm)
{
	struct profile *p = profile_set_profile(ps, ps_str(ps, event, strlen(event)),
						UNIT_EVENTS);
	thread_id t = profile_set_thread(ps, 7, 8, ps_str(ps, comm, strlen(comm)));
	stack_id s = STACK_ROOT;

	for (int i = 0; i < n; i++)
		s = profile_set_stack(ps, s, mkframe(ps, names[i], "mod"));
	assert_int_equal(profile_add_sample(p, s, w, 1000 * (int64_t)w, true, t, NULL), 0);
}

static void
test_merge(void **state)
{
	struct profile_set *a = profile_set_new(), *b = profile_set_new();
	const char *s1[] = { "main", "f" }, *s2[] = { "main", "g", "h" }, *s3[] = { "other" };
	struct tf_error err = TF_ERROR_INIT;
	char buf[256];
	struct profile *pc;

	(void)state;
	build_one(a, "cycles", s1, 2, 10, "x");
	build_one(b, "instructions", s3, 1, 5, "y");
	build_one(b, "cycles", s2, 3, 20, "x");
	build_one(b, "cycles", s1, 2, 30, "x");
	profile_set_warn(b, 4, "something odd");
	assert_int_equal(profile_set_merge(a, b, 100, &err), 0);

	assert_int_equal(a->nr_profiles, 2);
	pc = profile_set_find_profile(a, "cycles");
	assert_int_equal(pc->nr_samples, 3);
	assert_int_equal(pc->total_weight, 60);
	assert_string_equal(stack_text(a, pc->stack[1], buf, sizeof(buf)), "main;g;h");
	/* The same stack in both sets is one stack after the merge. */
	assert_int_equal(pc->stack[0], pc->stack[2]);
	assert_int_equal(pc->time_min, 10000);
	assert_int_equal(pc->time_max, 30000);
	assert_int_equal(pc->thread[0], pc->thread[1]);
	assert_int_equal(profile_set_find_profile(a, "instructions")->total_weight, 5);
	assert_int_equal(a->nr_diags, 1);
	assert_int_equal(a->diags[0].line, 104);
	assert_string_equal(a->diags[0].msg, "something odd");
	assert_int_equal(b->nr_diags, 0);
	check_profile_set(a);
	check_profile_set(b);
	assert_true(profile_set_memory(a) > 0);
	tf_error_release(&err);
	profile_set_free(a);
	profile_set_free(b);
}

/*
 * A rewrite as the symbolizer does it: "f@1" and "f@2" (two addresses in
 * f) become f with "g" inlined into it, at different lines; "h" keeps its
 * frame; "x" is renamed to "f", so its stacks merge with f's.
 */
struct rewrite_ctx {
	struct frame out[2];
	str_id file[2];
	uint32_t line[2];
	int calls;
	int twice; /* every frame becomes itself twice, without positions */
};

static void
rewrite_cb(void *vctx, struct profile_set *ps, const struct frame *old,
	   struct frame_rewrite *rw)
{
	struct rewrite_ctx *c = vctx;
	const char *name = ps_get(ps, old->name);

	c->calls++;
	if (c->twice) {
		c->out[0] = c->out[1] = *old;
		rw->frames = c->out;
		rw->nr = 2;
		return;
	}
	memset(c->out, 0, sizeof(c->out));
	c->out[0].name = ps_str(ps, "f", 1);
	c->out[0].module = old->module;
	c->out[1] = c->out[0];
	c->out[1].name = ps_str(ps, "g", 1);
	c->out[1].flags = FRAME_INLINED;
	c->file[0] = c->file[1] = ps_str(ps, "a.c", 3);
	rw->frames = c->out;
	if (!strcmp(name, "f@1") || !strcmp(name, "f@2")) {
		c->line[0] = 10;
		c->line[1] = name[2] == '1' ? 3 : 4;
		rw->file = c->file;
		rw->line = c->line;
		rw->nr = 2;
	} else if (!strcmp(name, "x")) {
		rw->nr = 1;
	} else {
		rw->nr = 0; /* unchanged */
	}
}

static void
test_rewrite(void **state)
{
	struct profile_set *ps = profile_set_new();
	const char *s1[] = { "main", "f@1" }, *s2[] = { "main", "f@2" };
	const char *s3[] = { "main", "x", "h" }, *s4[] = { "main" };
	struct rewrite_ctx ctx = { .calls = 0 };
	struct profile *p;
	char buf[256];
	const struct src_node *n;

	(void)state;
	build_one(ps, "cycles", s1, 2, 1, "c");
	build_one(ps, "cycles", s2, 2, 2, "c");
	build_one(ps, "cycles", s3, 3, 4, "c");
	build_one(ps, "cycles", s4, 1, 8, "c");
	profile_set_rewrite(ps, rewrite_cb, &ctx);
	check_profile_set(ps);
	assert_int_equal(ctx.calls, 5); /* once per old frame */
	p = ps->profiles[0];
	assert_int_equal(p->nr_samples, 4);
	assert_int_equal(p->total_weight, 15);
	assert_string_equal(stack_text(ps, p->stack[0], buf, sizeof(buf)), "main;f;g");
	/* Two addresses of one function: one stack, two positions. */
	assert_int_equal(p->stack[0], p->stack[1]);
	assert_string_equal(stack_text(ps, p->stack[2], buf, sizeof(buf)), "main;f;h");
	assert_string_equal(stack_text(ps, p->stack[3], buf, sizeof(buf)), "main");
	assert_int_equal(ps->nr_frames, 4); /* main, f, g, h */
	assert_true(ps->frames[ps->stacks[p->stack[0]].frame].flags & FRAME_INLINED);

	assert_non_null(p->src);
	n = &ps->srcs[p->src[0]];
	assert_int_equal(n->line, 3);
	assert_string_equal(ps_get(ps, n->file), "a.c");
	assert_int_equal(ps->srcs[n->parent].line, 10);
	assert_int_equal(ps->srcs[p->src[1]].line, 4);
	assert_int_equal(ps->srcs[p->src[1]].parent, n->parent);
	/* Frames with no position have an empty one, on the same stack. */
	n = &ps->srcs[p->src[2]];
	assert_int_equal(n->stack, p->stack[2]);
	assert_int_equal(n->file, STR_EMPTY);
	assert_int_equal(ps->srcs[p->src[3]].line, 0);

	/* A renaming keeps the positions. */
	ctx.calls = 0;
	profile_set_rewrite(ps, rewrite_cb, &ctx);
	check_profile_set(ps);
	assert_non_null(p->src);
	assert_int_equal(ps->srcs[p->src[0]].line, 3);
	assert_int_equal(ps->srcs[p->src[0]].stack, p->stack[0]);
	assert_string_equal(stack_text(ps, p->stack[0], buf, sizeof(buf)), "main;f;g");

	/* Growing stacks without positions drops them. */
	ctx.twice = 1;
	profile_set_rewrite(ps, rewrite_cb, &ctx);
	check_profile_set(ps);
	assert_null(p->src);
	assert_int_equal(ps->nr_srcs, 1);
	assert_string_equal(stack_text(ps, p->stack[0], buf, sizeof(buf)), "main;main;f;f;g;g");
	profile_set_free(ps);
}

/*
 * The two halves of a rewrite: the build reads the set only (a snapshot of
 * its tables stays equal), gives a map from old stacks to new, counts its
 * progress up to its total, and the swap leaves the set as
 * profile_set_rewrite() would and the shadow with the old tables, from
 * which a second build can start.
 */
static void
test_rewrite_build_swap(void **state)
{
	struct profile_set *ps = profile_set_new(), *out, *again;
	const char *s1[] = { "main", "f@1" }, *s2[] = { "main", "f@2" };
	const char *s3[] = { "main", "x", "h" };
	struct rewrite_ctx ctx = { .calls = 0 };
	_Atomic uint64_t done = 0, total = 0;
	_Atomic int cancel = 0;
	struct rewrite_opts o = { .done = &done, .total = &total, .cancel = &cancel };
	uint32_t nframes, nstacks;
	stack_id old0, old2, *map;
	struct profile *p;
	char buf[256];

	(void)state;
	build_one(ps, "cycles", s1, 2, 1, "c");
	build_one(ps, "cycles", s2, 2, 2, "c");
	build_one(ps, "cycles", s3, 3, 4, "c");
	p = ps->profiles[0];
	nframes = ps->nr_frames;
	nstacks = ps->nr_stacks;
	old0 = p->stack[0];
	old2 = p->stack[2];

	out = profile_set_rewrite_build(ps, rewrite_cb, &ctx, &o, &map);
	assert_non_null(out);
	/* ps is untouched by the build. */
	assert_int_equal(ps->nr_frames, nframes);
	assert_int_equal(ps->nr_stacks, nstacks);
	assert_int_equal(p->stack[0], old0);
	check_profile_set(ps);
	assert_true(total > 0);
	assert_int_equal(done, total);
	/* The map names the stacks the samples got. */
	assert_int_equal(out->profiles[0]->stack[0], map[old0]);
	assert_int_equal(out->profiles[0]->stack[2], map[old2]);
	assert_int_equal(map[STACK_ROOT], STACK_ROOT);
	/* Old str_ids mean the same in the shadow. */
	assert_string_equal(ps_get(out, ps->frames[0].name), ps_get(ps, ps->frames[0].name));

	/* What the set is stays with it, whatever the shadow says. */
	ps->perf_script = true;
	out->perf_script = false;
	profile_set_swap_tables(ps, out);
	check_profile_set(ps);
	assert_true(ps->perf_script);
	assert_false(out->perf_script);
	assert_string_equal(stack_text(ps, p->stack[0], buf, sizeof(buf)), "main;f;g");
	assert_int_equal(p->stack[0], map[old0]);
	assert_int_equal(p->stack[0], p->stack[1]);
	assert_int_equal(ps->srcs[p->src[1]].line, 4);
	/* The shadow holds the old tables now, and can be built from. */
	assert_int_equal(out->nr_frames, nframes);
	assert_int_equal(out->profiles[0]->stack[0], old0);
	assert_string_equal(stack_text(out, old2, buf, sizeof(buf)), "main;x;h");
	ctx.calls = 0;
	again = profile_set_rewrite_build(out, rewrite_cb, &ctx, NULL, NULL);
	assert_non_null(again);
	assert_int_equal(ctx.calls, (int)nframes);
	assert_int_equal(again->profiles[0]->stack[0], p->stack[0]);
	profile_set_free(again);
	/* Consumed, the same answer, in the shadow's own arrays. */
	{
		stack_id *arr = out->profiles[0]->stack;

		again = profile_set_rewrite_consume(out, rewrite_cb, &ctx, NULL, NULL);
		assert_non_null(again);
		assert_ptr_equal(again->profiles[0]->stack, arr);
		assert_null(out->profiles[0]->stack);
		assert_int_equal(again->profiles[0]->stack[0], p->stack[0]);
		assert_int_equal(again->profiles[0]->stack[2], p->stack[2]);
		assert_int_equal(again->srcs[again->profiles[0]->src[1]].line, 4);
	}
	free(map);
	profile_set_free(again);
	profile_set_free(out);

	/* A cancel before the end: no result, ps as it was. */
	cancel = 1;
	done = 0;
	out = profile_set_rewrite_build(ps, rewrite_cb, &ctx, &o, &map);
	assert_null(out);
	check_profile_set(ps);
	assert_string_equal(stack_text(ps, p->stack[0], buf, sizeof(buf)), "main;f;g");
	profile_set_free(ps);
}

/*
 * A rewrite big enough for rewrite_build()'s helper thread, which
 * populates the new arrays ahead of the stacks loop (more than 8 MiB of
 * them): a tree of 11 levels in which every stack has the children x@1,
 * x@2 and y (265,720 stacks), a sample on each leaf. x@1 and x@2 both
 * become x with an inlined xi, so the rebuilt tree is far smaller than
 * the room made for it: 3 stacks per parent per level, 1 + 3 * (2^11 - 1).
 */
#define BIG_LEVELS 11

struct big_ctx {
	struct frame out[2];
	_Atomic int *cancel; /* set once every frame is rewritten, if not NULL */
};

static void
big_cb(void *vctx, struct profile_set *ps, const struct frame *old, struct frame_rewrite *rw)
{
	struct big_ctx *c = vctx;

	if (ps_get(ps, old->name)[0] != 'x')
		return; /* y stays */
	c->out[0] = c->out[1] = *old;
	c->out[0].name = ps_str(ps, "x", 1);
	c->out[1].name = ps_str(ps, "xi", 2);
	c->out[1].flags |= FRAME_INLINED;
	rw->frames = c->out;
	rw->nr = 2;
}

static void
big_frames_done(void *vctx)
{
	struct big_ctx *c = vctx;

	if (c->cancel)
		atomic_store(c->cancel, 1);
}

/* "x@1;y;x@2" as the rewrite says it: "x;xi;y;x;xi". */
static void
big_expect(const char *old, struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
	for (const char *p = old; *p;) {
		if (!strncmp(p, "x@", 2)) {
			strbuf_addstr(sb, "x;xi");
			p += 3;
		} else {
			strbuf_addch(sb, *p++);
		}
	}
}

static struct profile_set *
big_tree(void)
{
	struct profile_set *ps = profile_set_new();
	frame_id kid[3] = { mkframe(ps, "x@1", "mod"), mkframe(ps, "x@2", "mod"),
			    mkframe(ps, "y", "mod") };
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	thread_id t = profile_set_thread(ps, 7, 8, ps_str(ps, "c", 1));
	stack_id *level = xmalloc(sizeof(*level)), *next;
	size_t n = 1;

	level[0] = STACK_ROOT;
	for (int d = 0; d < BIG_LEVELS; d++, n *= 3) {
		next = xmalloc(sizeof(*next) * n * 3);
		for (size_t i = 0; i < n; i++)
			for (int k = 0; k < 3; k++)
				next[i * 3 + k] = profile_set_stack(ps, level[i], kid[k]);
		free(level);
		level = next;
	}
	for (size_t i = 0; i < n; i++)
		assert_int_equal(profile_add_sample(p, level[i], 1, (int64_t)i, true, t, NULL), 0);
	free(level);
	return ps;
}

static void
test_rewrite_big(void **state)
{
	struct profile_set *ps = big_tree(), *out;
	struct profile *p = ps->profiles[0];
	struct big_ctx ctx = { .cancel = NULL };
	_Atomic int cancel = 0;
	struct rewrite_opts o = { .cancel = &cancel, .frames_done = big_frames_done };
	struct strbuf want = STRBUF_INIT;
	char **texts = xcalloc(p->nr_samples, sizeof(*texts));
	uint32_t nstacks = ps->nr_stacks;
	char buf[512];
	stack_id *map;

	(void)state;
	assert_int_equal(nstacks, (3 * 177147 - 1) / 2); /* 3^0 + ... + 3^11 */
	check_profile_set(ps);
	for (size_t i = 0; i < p->nr_samples; i += 97)
		texts[i] = xstrdup(stack_text(ps, p->stack[i], buf, sizeof(buf)));

	/* Cancelled in the stacks loop, with the helper running: no result, ps as it was. */
	ctx.cancel = &cancel;
	assert_null(profile_set_rewrite_build(ps, big_cb, &ctx, &o, NULL));
	assert_int_equal(ps->nr_stacks, nstacks);
	check_profile_set(ps);

	ctx.cancel = NULL;
	cancel = 0;
	out = profile_set_rewrite_build(ps, big_cb, &ctx, &o, &map);
	assert_non_null(out);
	assert_int_equal(out->nr_stacks, 1 + 3 * ((1u << BIG_LEVELS) - 1));
	/* The room made for 442,865 stacks is given back. */
	assert_true(out->alloc_stacks < out->nr_stacks + out->nr_stacks / 4);
	for (size_t i = 0; i < p->nr_samples; i++) {
		assert_int_equal(out->profiles[0]->stack[i], map[p->stack[i]]);
		if (!texts[i])
			continue;
		big_expect(texts[i], &want);
		assert_string_equal(stack_text(out, out->profiles[0]->stack[i], buf, sizeof(buf)),
				    want.buf);
		free(texts[i]);
	}
	/* A shadow has no threads or weights to check: its tables, once swapped in. */
	profile_set_swap_tables(ps, out);
	check_profile_set(ps);
	free(map);
	free(texts);
	strbuf_release(&want);
	profile_set_free(out);
	profile_set_free(ps);
}

/*
 * A part of a profile for the loose merges: samples on pseudo-random paths
 * over x@1, x@2 (which big_cb() makes chains of) and y, so that parts
 * share many stacks; seed picks the paths, so the same part can be made
 * twice.
 */
static struct profile_set *
loose_part(uint32_t seed, size_t samples, const char *comm)
{
	struct profile_set *ps = profile_set_new();
	frame_id kid[3] = { mkframe(ps, "y", "mod"), mkframe(ps, "x@1", "mod"),
			    mkframe(ps, "x@2", "mod") };
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	thread_id t = profile_set_thread(ps, 7, 8, ps_str(ps, comm, strlen(comm)));

	for (size_t i = 0; i < samples; i++) {
		stack_id s = STACK_ROOT;
		int depth;

		seed = seed * 1103515245u + 12345u;
		depth = 1 + (int)(seed >> 16) % 9;
		for (int d = 0; d < depth; d++) {
			seed = seed * 1103515245u + 12345u;
			s = profile_set_stack(ps, s, kid[(seed >> 16) % 3]);
		}
		assert_int_equal(profile_add_sample(p, s, 1 + i % 5, (int64_t)i, true, t, NULL),
				 0);
	}
	return ps;
}

/* a and b hold the same tables and samples' stacks. */
static void
assert_same_sets(const struct profile_set *a, const struct profile_set *b)
{
	assert_int_equal(a->nr_frames, b->nr_frames);
	assert_memory_equal(a->frames, b->frames, sizeof(*a->frames) * a->nr_frames);
	assert_int_equal(a->nr_stacks, b->nr_stacks);
	assert_memory_equal(a->stacks, b->stacks, sizeof(*a->stacks) * a->nr_stacks);
	assert_int_equal(a->nr_threads, b->nr_threads);
	assert_int_equal(a->nr_profiles, b->nr_profiles);
	for (size_t i = 0; i < a->nr_profiles; i++) {
		const struct profile *p = a->profiles[i], *q = b->profiles[i];

		assert_int_equal(p->nr_samples, q->nr_samples);
		assert_int_equal(p->total_weight, q->total_weight);
		assert_memory_equal(p->stack, q->stack, sizeof(*p->stack) * p->nr_samples);
		assert_memory_equal(p->thread, q->thread, sizeof(*p->thread) * p->nr_samples);
	}
}

/*
 * A loose merge of parts, then a rewrite, gives the set that merging them
 * and then rewriting gives: the same stacks with the same ids. Between the
 * two, the set fails its check; the parts are left empty and valid.
 */
static void
test_merge_loose(void **state)
{
	const uint32_t seeds[3] = { 1, 2, 3 };
	const size_t samples[3] = { 3000, 2000, 2500 };
	struct profile_set *want = loose_part(seeds[0], samples[0], "a");
	struct profile_set *got = loose_part(seeds[0], samples[0], "a");
	struct tf_error err = TF_ERROR_INIT;
	struct big_ctx ctx = { .cancel = NULL };
	struct profile_set *out;
	uint32_t nr_old, nr_parts = 0;
	stack_id *map;

	(void)state;
	for (int k = 1; k < 3; k++) {
		struct profile_set *w = loose_part(seeds[k], samples[k], k == 1 ? "b" : "a");
		struct profile_set *g = loose_part(seeds[k], samples[k], k == 1 ? "b" : "a");

		nr_parts += g->nr_stacks - 1;
		assert_int_equal(profile_set_merge(want, w, 0, &err), 0);
		assert_int_equal(profile_set_merge_loose(got, g, 0, &err), 0);
		/* Both given up: no samples left, and still sets. */
		assert_int_equal(g->profiles[0]->nr_samples, 0);
		check_profile_set(g);
		profile_set_free(w);
		profile_set_free(g);
	}
	/* Parts 1 and 2 added their stacks, duplicates included, as they were. */
	assert_int_equal(got->nr_loose, nr_parts);
	assert_true(got->nr_stacks + got->nr_loose > want->nr_stacks);
	assert_int_not_equal(profile_set_check(got, &err), 0);
	assert_non_null(strstr(tf_error_text(&err), "loose stacks"));
	tf_error_release(&err);
	assert_int_equal(got->profiles[0]->nr_samples, 7500);
	assert_int_equal(got->profiles[0]->total_weight, want->profiles[0]->total_weight);
	assert_int_equal(got->nr_threads, 2);

	/* The build maps every old stack, loose ones too. */
	nr_old = got->nr_stacks + got->nr_loose;
	out = profile_set_rewrite_build(got, big_cb, &ctx, NULL, &map);
	assert_int_equal(out->nr_loose, 0);
	for (size_t i = 0; i < got->profiles[0]->nr_samples; i++) {
		assert_true(got->profiles[0]->stack[i] < nr_old);
		assert_int_equal(out->profiles[0]->stack[i], map[got->profiles[0]->stack[i]]);
	}
	free(map);
	profile_set_swap_tables(got, out);
	profile_set_free(out);
	profile_set_rewrite(want, big_cb, &ctx);
	check_profile_set(got);
	assert_same_sets(got, want);
	profile_set_free(want);
	profile_set_free(got);

	/* Interned without a rewrite: the stacks of a plain merge. */
	want = loose_part(seeds[0], samples[0], "a");
	got = loose_part(seeds[0], samples[0], "a");
	for (int k = 1; k < 3; k++) {
		struct profile_set *w = loose_part(seeds[k], samples[k], "c");
		struct profile_set *g = loose_part(seeds[k], samples[k], "c");

		assert_int_equal(profile_set_merge(want, w, 0, &err), 0);
		assert_int_equal(profile_set_merge_loose(got, g, 0, &err), 0);
		profile_set_free(w);
		profile_set_free(g);
	}
	profile_set_intern_loose(got);
	assert_int_equal(got->nr_loose, 0);
	check_profile_set(got);
	assert_same_sets(got, want);

	/* A plain merge into a set with loose stacks interns them first. */
	{
		struct profile_set *w = loose_part(9, 500, "d"), *g = loose_part(9, 500, "d");
		struct profile_set *w2 = loose_part(10, 500, "d"), *g2 = loose_part(10, 500, "d");

		assert_int_equal(profile_set_merge(want, w, 0, &err), 0);
		assert_int_equal(profile_set_merge(want, w2, 0, &err), 0);
		assert_int_equal(profile_set_merge_loose(got, g, 0, &err), 0);
		assert_true(got->nr_loose > 0);
		assert_int_equal(profile_set_merge(got, g2, 0, &err), 0);
		assert_int_equal(got->nr_loose, 0);
		check_profile_set(got);
		assert_same_sets(got, want);
		profile_set_free(w);
		profile_set_free(g);
		profile_set_free(w2);
		profile_set_free(g2);
	}
	profile_set_free(want);
	profile_set_free(got);

	/* Source positions name stacks: a part with them is merged plainly. */
	want = loose_part(1, 100, "a");
	got = loose_part(1, 100, "a");
	{
		struct profile_set *g = loose_part(2, 100, "a");

		profile_set_src(g, SRC_ROOT, 1, STR_EMPTY, 3);
		assert_int_equal(profile_set_merge_loose(got, g, 0, &err), 0);
		assert_int_equal(got->nr_loose, 0);
		assert_int_equal(got->nr_srcs, 2);
		check_profile_set(got);
		profile_set_free(g);
	}
	tf_error_release(&err);
	profile_set_free(want);
	profile_set_free(got);
}

static void
test_check_catches_bad_position(void **state)
{
	struct profile_set *ps = profile_set_new();
	const char *s1[] = { "main", "f@1" }, *s3[] = { "main", "x", "h" };
	struct rewrite_ctx ctx = { .calls = 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct profile *p;

	(void)state;
	build_one(ps, "cycles", s1, 2, 1, "c");
	build_one(ps, "cycles", s3, 3, 1, "c");
	profile_set_rewrite(ps, rewrite_cb, &ctx);
	check_profile_set(ps);
	p = ps->profiles[0];
	/* A sample whose position lies on another stack. */
	p->src[0] = p->src[1];
	assert_int_equal(profile_set_check(ps, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "position"));
	tf_error_release(&err);
	profile_set_free(ps);
}

static void
test_merge_positions(void **state)
{
	struct profile_set *a = profile_set_new(), *b = profile_set_new();
	const char *s1[] = { "main", "f@1" }, *s2[] = { "main", "f@2" };
	struct rewrite_ctx ctx = { .calls = 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct profile *p;

	(void)state;
	build_one(a, "cycles", s1, 2, 1, "c");
	build_one(b, "cycles", s2, 2, 2, "c");
	profile_set_rewrite(b, rewrite_cb, &ctx);
	assert_int_equal(profile_set_merge(a, b, 0, &err), 0);
	check_profile_set(a);
	p = a->profiles[0];
	assert_non_null(p->src);
	assert_int_equal(p->src[0], SRC_ROOT); /* a had no positions */
	assert_int_equal(a->srcs[p->src[1]].line, 4);
	tf_error_release(&err);
	profile_set_free(a);
	profile_set_free(b);
}

/*
 * A merge bigger than the chunk profile_set_merge() copies at a time (it
 * gives the source's memory back as it goes): every sample arrives, in
 * order, with its weight, time and thread.
 */
static void
test_merge_big(void **state)
{
	struct profile_set *a = profile_set_new(), *b = profile_set_new();
	struct profile *pa = profile_set_profile(a, STR_EMPTY, UNIT_NONE);
	struct profile *pb = profile_set_profile(b, STR_EMPTY, UNIT_NONE);
	struct tf_error err = TF_ERROR_INIT;
	const size_t na = 1000, nb = 2500000;
	thread_id t = profile_set_thread(b, 7, 7, STR_EMPTY);
	uint64_t want = 0;

	(void)state;
	profile_set_thread(a, -1, -1, STR_EMPTY);
	for (size_t i = 0; i < na; i++)
		profile_add_sample(pa, STACK_ROOT, 1, (int64_t)i + 1, true, 0, &err);
	for (size_t i = 0; i < nb; i++) {
		profile_add_sample(pb, STACK_ROOT, i % 1000, (int64_t)(na + i + 1), true, t, &err);
		want += i % 1000;
	}
	assert_int_equal(profile_set_merge(a, b, 0, &err), 0);
	assert_int_equal(pa->nr_samples, na + nb);
	assert_int_equal(pa->total_weight, na + want);
	for (size_t i = 0; i < nb; i += 99991) {
		assert_int_equal(pa->weight[na + i], i % 1000);
		assert_int_equal(pa->time[na + i], (int64_t)(na + i + 1));
		assert_string_equal(ps_get(a, a->threads[pa->thread[na + i]].comm), "");
		assert_int_equal(a->threads[pa->thread[na + i]].tid, 7);
	}
	assert_int_equal(pa->time[na + nb - 1], (int64_t)(na + nb));
	assert_int_equal(pb->nr_samples, 0);
	check_profile_set(a);
	check_profile_set(b);
	tf_error_release(&err);
	profile_set_free(a);
	profile_set_free(b);
}

static void
test_merge_decimals(void **state)
{
	struct profile_set *a = profile_set_new(), *b = profile_set_new();
	struct profile *pa = profile_set_profile(a, STR_EMPTY, UNIT_NONE);
	struct profile *pb = profile_set_profile(b, STR_EMPTY, UNIT_NONE);
	struct tf_error err = TF_ERROR_INIT;

	(void)state;
	profile_set_thread(a, -1, -1, STR_EMPTY);
	profile_set_thread(b, -1, -1, STR_EMPTY);
	profile_add_sample(pa, STACK_ROOT, 2, 0, false, 0, &err);       /* 2 */
	profile_set_decimals(pb, 1, &err);
	profile_add_sample(pb, STACK_ROOT, 15, 0, false, 0, &err);      /* 1.5 */
	assert_int_equal(profile_set_merge(a, b, 0, &err), 0);
	assert_int_equal(pa->weight_decimals, 1);
	assert_int_equal(pa->weight[0], 20);
	assert_int_equal(pa->weight[1], 15);
	assert_int_equal(pa->total_weight, 35);
	check_profile_set(a);
	tf_error_release(&err);
	profile_set_free(a);
	profile_set_free(b);
}

static void
test_spans(void **state)
{
	struct profile_set *a = profile_set_new(), *b = profile_set_new(), *c = profile_set_new();
	struct profile *pa = profile_set_profile(a, STR_EMPTY, UNIT_NANOSECONDS);
	struct profile *pb = profile_set_profile(b, STR_EMPTY, UNIT_NANOSECONDS);
	struct profile *pc = profile_set_profile(c, STR_EMPTY, UNIT_NANOSECONDS);
	struct tf_error err = TF_ERROR_INIT;

	(void)state;
	profile_set_thread(a, -1, -1, STR_EMPTY);
	profile_set_thread(b, -1, -1, STR_EMPTY);
	profile_set_thread(c, -1, -1, STR_EMPTY);
	/* A sample of a profile with spans ends its weight after its time. */
	pa->spans = true;
	profile_add_sample(pa, STACK_ROOT, 50, 100, true, 0, &err);
	profile_add_sample(pa, STACK_ROOT, 10, 120, true, 0, &err);
	assert_int_equal(pa->time_min, 100);
	assert_int_equal(pa->time_max, 150);
	/* An end past INT64_MAX saturates. */
	profile_add_sample(pa, STACK_ROOT, UINT64_MAX / 2, 200, true, 0, &err);
	assert_int_equal(pa->time_max, INT64_MAX);
	/* Into an empty profile, spans come along; with instants, they go. */
	pb->spans = true;
	profile_add_sample(pb, STACK_ROOT, 5, 10, true, 0, &err);
	assert_int_equal(profile_set_merge(c, b, 0, &err), 0);
	assert_true(pc->spans);
	assert_int_equal(pc->time_max, 15);
	assert_int_equal(profile_set_merge(a, c, 0, &err), 0);
	assert_true(pa->spans);
	profile_add_sample(pb, STACK_ROOT, 5, 10, true, 0, &err);
	pb->spans = false;
	assert_int_equal(profile_set_merge(a, b, 0, &err), 0);
	assert_false(pa->spans);
	check_profile_set(a);
	tf_error_release(&err);
	profile_set_free(a);
	profile_set_free(b);
	profile_set_free(c);
}

/*
 * Clearing the stacks leaves the root alone, and the set takes the same
 * stacks again with the ids they get in the order they come.
 */
/*
 * A stack with many children finds them through the table of busy
 * stacks' children, one with few by walking them; both give each child
 * once, before and after the parent turns busy, and after a clear.
 */
static void
test_busy_parent(void **state)
{
	struct profile_set *ps = profile_set_new();
	frame_id fr[3 * STACK_WALK];
	stack_id kid[3 * STACK_WALK], a;
	char name[16];

	(void)state;
	for (int i = 0; i < 3 * STACK_WALK; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		fr[i] = mkframe(ps, name, "m");
	}
	a = profile_set_stack(ps, STACK_ROOT, fr[0]);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 3 * STACK_WALK; i++) {
			stack_id s = profile_set_stack(ps, a, fr[i]);

			if (round)
				assert_int_equal(s, kid[i]);
			kid[i] = s;
			/* Every earlier child is still found, walked or looked up. */
			for (int j = 0; j <= i; j++)
				assert_int_equal(profile_set_stack(ps, a, fr[j]), kid[j]);
			check_profile_set(ps);
		}
		assert_int_equal(ps->nr_stacks, 2 + 3 * STACK_WALK);
	}
	assert_int_equal(ps->kids.nr_hub, 3 * STACK_WALK);
	/* A child of a busy stack has its own (few) children. */
	assert_int_equal(ps->stacks[profile_set_stack(ps, kid[5], fr[1])].depth, 3);
	check_profile_set(ps);
	profile_set_clear_stacks(ps);
	assert_int_equal(ps->kids.nr_hub, 0);
	check_profile_set(ps);
	assert_int_equal(profile_set_stack(ps, STACK_ROOT, fr[2]), 1);
	assert_int_equal(profile_set_stack(ps, 1, fr[0]), 2);
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * Stacks added without a lookup, counted as the lens's pass counts them,
 * are found as those profile_set_stack() adds are, busy parent or not.
 */
static void
test_new_stack(void **state)
{
	struct profile_set *ps = profile_set_new();
	frame_id fr[3 * STACK_WALK];
	stack_id kid[3 * STACK_WALK], a, b;
	char name[16];

	(void)state;
	for (int i = 0; i < 3 * STACK_WALK; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		fr[i] = mkframe(ps, name, "m");
	}
	a = profile_set_new_stack(ps, STACK_ROOT, fr[0], 1);
	assert_int_equal(profile_set_stack(ps, STACK_ROOT, fr[0]), a);
	for (int i = 0; i < 3 * STACK_WALK; i++) {
		uint32_t kids = i + 1 <= STACK_WALK ? (uint32_t)i + 1 : STACK_WALK + 1;

		kid[i] = profile_set_new_stack(ps, a, fr[i], kids);
		assert_int_equal(kid[i], 2 + i);
		assert_int_equal(ps->stacks[kid[i]].depth, 2);
		for (int j = 0; j <= i; j++)
			assert_int_equal(profile_set_find_stack(ps, a, fr[j]), kid[j]);
		check_profile_set(ps);
	}
	/* Busy past STACK_WALK: the children are in the table. */
	assert_int_equal(ps->kids.nr_hub, 3 * STACK_WALK);
	/* Mixed with looked-up ones under another parent. */
	b = profile_set_stack(ps, kid[3], fr[1]);
	assert_int_equal(profile_set_new_stack(ps, kid[3], fr[2], 2), b + 1);
	assert_int_equal(profile_set_stack(ps, kid[3], fr[1]), b);
	assert_int_equal(profile_set_stack(ps, kid[3], fr[2]), b + 1);
	assert_int_equal(profile_set_find_stack(ps, kid[3], fr[3]), STACK_NONE);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_clear_stacks(void **state)
{
	struct profile_set *ps = profile_set_new();
	const char *s1[] = { "main", "f" }, *s2[] = { "main", "g", "h" };
	struct profile *p;
	frame_id main_f, g;
	stack_id s;
	char buf[64];

	(void)state;
	build_one(ps, "cycles", s1, 2, 1, "c");
	build_one(ps, "cycles", s2, 3, 1, "c");
	assert_int_equal(ps->nr_stacks, 5);
	p = ps->profiles[0];
	profile_set_clear_stacks(ps);
	assert_int_equal(ps->nr_stacks, 1);
	assert_int_equal(ps->stacks[STACK_ROOT].depth, 0);
	/* Frames, threads and strings stay. */
	assert_int_equal(ps->nr_frames, 4);
	assert_int_equal(ps->nr_threads, 1);
	g = mkframe(ps, "g", "mod");
	main_f = mkframe(ps, "main", "mod");
	assert_int_equal(ps->nr_frames, 4);
	s = profile_set_stack(ps, STACK_ROOT, g);
	assert_int_equal(s, 1);
	s = profile_set_stack(ps, s, main_f);
	assert_int_equal(s, 2);
	assert_int_equal(profile_set_stack(ps, STACK_ROOT, g), 1);
	assert_string_equal(stack_text(ps, s, buf, sizeof(buf)), "g;main");
	p->stack[0] = s;
	p->stack[1] = STACK_ROOT;
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_check_catches_corruption(void **state)
{
	struct profile_set *ps = profile_set_new();
	const char *s1[] = { "main", "f" };
	struct tf_error err = TF_ERROR_INIT;

	(void)state;
	build_one(ps, "cycles", s1, 2, 10, "x");
	ps->profiles[0]->total_weight++;
	assert_int_equal(profile_set_check(ps, &err), -1);
	assert_non_null(strstr(err.msg, "total"));
	ps->profiles[0]->total_weight--;
	ps->stacks[2].depth = 7;
	assert_int_equal(profile_set_check(ps, &err), -1);
	assert_non_null(strstr(err.msg, "depth"));
	ps->stacks[2].depth = 2;
	check_profile_set(ps);
	/* A child left out of its parent's list, a list that loops. */
	ps->kids.link[1].first = STACK_ROOT;
	assert_int_equal(profile_set_check(ps, &err), -1);
	assert_non_null(strstr(err.msg, "listed"));
	ps->kids.link[1].first = 2;
	ps->kids.link[2].next = 2;
	assert_int_equal(profile_set_check(ps, &err), -1);
	assert_non_null(strstr(err.msg, "child list broken"));
	ps->kids.link[2].next = STACK_ROOT;
	ps->kids.link[1].first = 2;
	ps->kids.link[1].first |= STACK_BUSY;
	assert_int_equal(profile_set_check(ps, &err), -1);
	assert_non_null(strstr(err.msg, "counted as busy"));
	ps->kids.link[1].first = 2;
	ps->kids.link[2].frame++;
	assert_int_equal(profile_set_check(ps, &err), -1);
	assert_non_null(strstr(err.msg, "links name frame"));
	ps->kids.link[2].frame--;
	check_profile_set(ps);
	tf_error_release(&err);
	profile_set_free(ps);
}

/* A view shares frames and strings by id and interns stacks of its own. */
static void
test_view(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile_set view;
	stack_id s, v, v2;
	frame_id fa, fb;
	char buf[64];

	(void)state;
	s = test_stack(ps, "a;b");
	fb = ps->stacks[s].frame;
	fa = ps->stacks[ps->stacks[s].parent].frame;
	profile_set_view_init(&view, ps);
	assert_int_equal(view.nr_stacks, 1);
	assert_int_equal(view.nr_frames, ps->nr_frames);
	assert_int_equal(view.nr_profiles, 0);
	/* b;a: the other way round from the set's a;b. */
	v = profile_set_stack(&view, profile_set_stack(&view, STACK_ROOT, fb), fa);
	assert_int_equal(view.nr_stacks, 3);
	assert_string_equal(stack_text(&view, v, buf, sizeof(buf)), "b;a");
	assert_int_equal(profile_set_stack(&view, view.stacks[v].parent, fa), v);
	/* Reserving room keeps ids and lookups. */
	profile_set_reserve_stacks(&view, 100000);
	assert_true(view.alloc_stacks >= 100003);
	assert_int_equal(profile_set_stack(&view, view.stacks[v].parent, fa), v);
	v2 = profile_set_stack(&view, v, fb);
	assert_int_equal(view.nr_stacks, 4);
	assert_int_equal(view.stacks[v2].depth, 3);
	check_profile_set(&view);
	/* The set itself is untouched. */
	assert_int_equal(ps->nr_stacks, 3);
	profile_set_view_release(&view);
	profile_set_reserve_stacks(ps, 10);
	check_profile_set(ps);
	profile_set_free(ps);
}

/* One set with one sample of stack text and, if total, a figure of its leaf. */
static struct profile_set *
figured_set(const char *stack, uint64_t w, uint64_t self, uint64_t total)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "time", 4), UNIT_NANOSECONDS);
	stack_id s;

	test_sample(ps, p, stack, w, 0, 1);
	s = test_stack(ps, stack);
	if (total)
		profile_add_figure(p, ps->stacks[s].frame, self, total);
	return ps;
}

/*
 * Figures describe all of a profile's samples: a merge of two sets with
 * figures adds them up, on the merged frames; samples without figures
 * make them wrong, so they go.
 */
static void
test_merge_figures(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *a = figured_set("main;f", 5, 2, 5), *b = figured_set("g;f", 3, 1, 3);
	struct profile *p;

	(void)state;
	assert_int_equal(profile_set_merge(a, b, 0, &err), 0);
	p = a->profiles[0];
	assert_int_equal(p->nr_figures, 2);
	assert_string_equal(ps_get(a, ps_frame(a, p->figures[1].frame)->name), "f");
	assert_int_equal(p->figures[1].self, 1);
	check_profile_set(a);
	profile_set_free(b);
	b = figured_set("h", 4, 0, 0);
	assert_int_equal(profile_set_merge(a, b, 0, &err), 0);
	assert_null(a->profiles[0]->figures);
	assert_int_equal(a->profiles[0]->nr_figures, 0);
	check_profile_set(a);
	profile_set_free(a);
	profile_set_free(b);
	/* Into a set with no samples yet, figures come along. */
	a = profile_set_new();
	b = figured_set("main;f", 5, 2, 5);
	assert_int_equal(profile_set_merge(a, b, 0, &err), 0);
	assert_int_equal(a->profiles[0]->nr_figures, 1);
	assert_int_equal(a->profiles[0]->figures[0].total, 5);
	check_profile_set(a);
	profile_set_free(a);
	profile_set_free(b);
	tf_error_release(&err);
}

/* Finding a stack adds none, busy parents (looked up by hash) as others. */
static void
test_find_stack(void **state)
{
	struct profile_set *ps = profile_set_new();
	stack_id ab = test_stack(ps, "a;b"), a = ps->stacks[ab].parent, kids[20];
	frame_id b = ps->stacks[ab].frame, z;
	struct frame f = { 0 };
	uint32_t nr;

	(void)state;
	assert_int_equal(profile_set_find_stack(ps, a, b), ab);
	assert_int_equal(profile_set_find_stack(ps, STACK_ROOT, b), STACK_NONE);
	f.name = ps_str(ps, "z", 1);
	z = profile_set_frame(ps, &f);
	nr = ps->nr_stacks;
	assert_int_equal(profile_set_find_stack(ps, a, z), STACK_NONE);
	assert_int_equal(ps->nr_stacks, nr);
	/* Past STACK_WALK children, a hash table. */
	for (int i = 0; i < 20; i++) {
		char name[8];

		snprintf(name, sizeof(name), "k%d", i);
		f.name = ps_str(ps, name, strlen(name));
		kids[i] = profile_set_stack(ps, a, profile_set_frame(ps, &f));
	}
	for (int i = 0; i < 20; i++)
		assert_int_equal(profile_set_find_stack(ps, a, ps->stacks[kids[i]].frame), kids[i]);
	assert_int_equal(profile_set_find_stack(ps, a, z), STACK_NONE);
	assert_int_equal(profile_set_find_stack(ps, a, b), ab);
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * Frames n0 .. n11 (fr), and 13 stacks in bulk, not linked yet: a;n0 ..
 * a;n11 (a turns busy), then a;n0;n1 under the first. Returns the first.
 */
static stack_id
add_bulk(struct profile_set *ps, stack_id a, frame_id *fr)
{
	struct frame f = { 0 };
	stack_id first;

	for (int i = 0; i < 12; i++) {
		char name[8];

		snprintf(name, sizeof(name), "n%d", i);
		f.name = ps_str(ps, name, strlen(name));
		fr[i] = profile_set_frame(ps, &f);
	}
	first = profile_set_add_stacks(ps, 13);
	for (int i = 0; i < 12; i++) {
		ps->stacks[first + i].parent = a;
		ps->stacks[first + i].frame = fr[i];
	}
	ps->stacks[first + 12].parent = first;
	ps->stacks[first + 12].frame = fr[1];
	return first;
}

/*
 * Stacks added in bulk with their links deferred: depths set, the set
 * checks (the deferred ones in no list), and the next profile_set_stack()
 * links them first, finding the ones made, in bulk or before.
 */
static void
test_add_stacks_deferred(void **state)
{
	struct profile_set *ps = profile_set_new();
	stack_id ab = test_stack(ps, "a;b"), a = ps->stacks[ab].parent, first;
	frame_id fr[12];

	(void)state;
	first = add_bulk(ps, a, fr);
	profile_set_defer_links(ps, first);
	assert_int_equal(ps->unlinked_from, first);
	for (int i = 0; i < 12; i++)
		assert_int_equal(ps->stacks[first + i].depth, 2);
	assert_int_equal(ps->stacks[first + 12].depth, 3);
	check_profile_set(ps);
	/* Not yet a's children: a still has one, b. */
	assert_int_equal(ps_first_child(ps, a), ab);
	assert_int_equal(ps_next_sibling(ps, ab), STACK_ROOT);
	/* Adding links them, and finds them. */
	assert_int_equal(profile_set_stack(ps, a, fr[11]), first + 11);
	assert_int_equal(ps->unlinked_from, 0);
	assert_int_equal(profile_set_find_stack(ps, first, fr[1]), first + 12);
	assert_int_equal(profile_set_find_stack(ps, a, ps->stacks[ab].frame), ab);
	assert_int_equal(profile_set_stack(ps, first + 12, fr[2]), first + 13);
	assert_int_equal(ps->stacks[first + 13].depth, 4);
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * Stacks added in bulk and linked after: found as profile_set_stack()
 * would make them, under a parent of before (a child already there) and
 * under one that turns busy on the way, with depths; the set checks.
 */
static void
test_add_stacks(void **state)
{
	struct profile_set *ps = profile_set_new();
	stack_id ab = test_stack(ps, "a;b"), a = ps->stacks[ab].parent, first;
	frame_id fr[12];

	(void)state;
	first = add_bulk(ps, a, fr);
	assert_int_equal(first, ab + 1);
	assert_int_equal(ps->nr_stacks, ab + 14);
	profile_set_link_stacks(ps, first);
	check_profile_set(ps);
	for (int i = 0; i < 12; i++) {
		assert_int_equal(profile_set_find_stack(ps, a, fr[i]), first + i);
		assert_int_equal(ps->stacks[first + i].depth, 2);
	}
	assert_int_equal(profile_set_find_stack(ps, a, ps->stacks[ab].frame), ab);
	assert_int_equal(profile_set_find_stack(ps, first, fr[1]), first + 12);
	assert_int_equal(ps->stacks[first + 12].depth, 3);
	/* Made again one by one, the same stacks. */
	assert_int_equal(profile_set_stack(ps, a, fr[11]), first + 11);
	assert_int_equal(profile_set_stack(ps, first, fr[1]), first + 12);
	assert_int_equal(ps->nr_stacks, first + 13);
	check_profile_set(ps);
	profile_set_free(ps);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_set_is_consistent),
		cmocka_unit_test(test_same_function),
		cmocka_unit_test(test_grow_samples_in_place),
		cmocka_unit_test(test_grow_pages),
		cmocka_unit_test(test_grow_pages_pool),
		cmocka_unit_test(test_grow_pages_pieces),
		cmocka_unit_test(test_reserve_samples),
		cmocka_unit_test(test_big_sample_arrays_keep_samples),
		cmocka_unit_test(test_find_stack),
		cmocka_unit_test(test_new_stack),
		cmocka_unit_test(test_add_stacks),
		cmocka_unit_test(test_add_stacks_deferred),
		cmocka_unit_test(test_frames_interned_on_identity),
		cmocka_unit_test(test_stacks_share_prefixes),
		cmocka_unit_test(test_many_stacks_grow_tables),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_samples_totals_and_time),
		cmocka_unit_test(test_find_event),
		cmocka_unit_test(test_decimals_exact),
		cmocka_unit_test(test_format_amount),
		cmocka_unit_test(test_format_share),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_decimals),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_rewrite),
		cmocka_unit_test(test_rewrite_build_swap),
		cmocka_unit_test(test_rewrite_big),
		cmocka_unit_test(test_merge_loose),
		cmocka_unit_test(test_check_catches_bad_position),
		cmocka_unit_test(test_merge_positions),
		cmocka_unit_test(test_merge_big),
		cmocka_unit_test(test_check_catches_corruption),
		cmocka_unit_test(test_view),
		cmocka_unit_test(test_clear_stacks),
		cmocka_unit_test(test_busy_parent),
		cmocka_unit_test(test_merge_figures),
		cmocka_unit_test(test_thread_names),
		cmocka_unit_test(test_wide_shift),
		cmocka_unit_test(test_check_catches_bad_thread_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
