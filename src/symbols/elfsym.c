#include "config.h"

#include "tflame/elfsym.h"

#include <elf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/bsearch.h"
#include "tflame/error.h"
#include "tflame/hash.h"
#include "tflame/radix.h"
#include "tflame/xalloc.h"

/*
 * Fresh memory for an array of n elements of size bytes, written soon:
 * from ELFSYM_HUGE bytes on, in huge pages (xmalloc_huge()). On this kind
 * of machine (a VM with shadow page tables) the first touch of a 4 KiB
 * page costs some 15 us, more than writing it. 256 KiB measured best:
 * 1 MiB, 2 MiB and never were all slower.
 */
#define ELFSYM_HUGE ((size_t)256 << 10)

static void *
elfsym_alloc(size_t n, size_t size)
{
	return xmalloc_huge(n, size, ELFSYM_HUGE);
}

void
elfsym_index_init(struct elfsym_index *ix)
{
	memset(ix, 0, sizeof(*ix));
}

void
elfsym_index_release(struct elfsym_index *ix)
{
	free(ix->syms);
	free(ix->ranges);
	free(ix->by_name);
	memset(ix, 0, sizeof(*ix));
}

void
elfsym_index_reserve(struct elfsym_index *ix, uint32_t n)
{
	if (n > ELFSYM_NONE - 1 - ix->nr_syms)
		die("elfsym: too many symbols");
	if (!ix->alloc_syms) {
		ix->syms = elfsym_alloc(n, sizeof(*ix->syms));
		ix->alloc_syms = n;
	}
	ALLOC_GROW_BY(ix->syms, ix->nr_syms, n, ix->alloc_syms);
}

void
elfsym_index_add(struct elfsym_index *ix, const struct elfsym_def *def)
{
	struct elfsym *s;

	if (ix->finished)
		BUG("elfsym_index_add() after elfsym_index_finish()");
	if (ix->nr_syms >= ELFSYM_NONE - 1)
		die("elfsym: too many symbols");
	ALLOC_GROW(ix->syms, ix->nr_syms, ix->alloc_syms);
	s = &ix->syms[ix->nr_syms];
	s->start = def->start;
	s->sized = def->size != 0;
	/* Until elfsym_index_finish(), a zero-size symbol's end is its limit. */
	if (s->sized)
		s->end = def->size > UINT64_MAX - def->start ? UINT64_MAX
							   : def->start + def->size;
	else
		s->end = def->limit > def->start ? def->limit : def->start;
	s->name = def->name;
	s->file = def->file;
	s->order = ix->nr_syms++;
	s->bind = def->bind;
	s->label = false;
}

/*
 * Sort the n keys at keys by key, stably, with tmp as room for as many:
 * returns keys or tmp, whichever holds the result. The radix sort of
 * radix.h, a byte a pass: the bytes in which no two keys differ (most of
 * an address's, in one module) take none. O(n) a pass, at most eight
 * passes, against qsort()'s n log n calls of a comparison.
 */
static struct elfsym_key *
elfsym_sort_keys(struct elfsym_key *keys, struct elfsym_key *tmp, uint32_t n)
{
	return radix_sort(keys, tmp, n, sizeof(*keys), offsetof(struct elfsym_key, key), 8);
}

/* GLOBAL before WEAK before LOCAL before the rest, as libdwfl ranks them. */
static int
elfsym_bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

/* The order of the array: by start, then the preference among aliases. */
static int
elfsym_cmp(const void *a, const void *b)
{
	const struct elfsym *x = a, *y = b;
	int rx = elfsym_bind_rank(x->bind), ry = elfsym_bind_rank(y->bind);

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->sized != y->sized)
		return x->sized ? -1 : 1;
	if (rx != ry)
		return rx > ry ? -1 : 1;
	if (x->sized && x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * The three classes of symbol for overlapping extents, the first one
 * present winning: sized non-local, sized local, zero-size.
 */
static int
elfsym_class(const struct elfsym *s)
{
	if (!s->sized)
		return 2;
	return s->bind == STB_LOCAL;
}

/* Append a range, merging it into the last one when the symbol is the same. */
static void
elfsym_range_add(struct elfsym_index *ix, uint32_t *alloc, uint64_t start,
		 uint32_t sym)
{
	if (ix->nr_ranges && ix->ranges[ix->nr_ranges - 1].sym == sym)
		return;
	ALLOC_GROW(ix->ranges, ix->nr_ranges, *alloc);
	ix->ranges[ix->nr_ranges].start = start;
	ix->ranges[ix->nr_ranges].sym = sym;
	ix->nr_ranges++;
}

/*
 * Cut the address space into ranges, each with the symbol it resolves to:
 * a sweep over the sorted symbols, with one stack per class of the symbols
 * begun so far. Within a class the latest start wins, and so does the most
 * preferred alias, pushed last: the top of a stack is its best symbol, as
 * long as it has not ended. Ended symbols are popped when they come to the
 * top. Each step either begins the symbols at one start or passes the end
 * of the current winner, so the sweep takes O(n) steps after the sort.
 * room holds the stacks: 3 * nr_syms entries.
 */
static void
elfsym_sweep(struct elfsym_index *ix, uint32_t *room)
{
	uint32_t n = ix->nr_syms, i = 0, alloc;
	uint32_t *stack[3], depth[3] = { 0, 0, 0 };
	uint64_t pos = n ? ix->syms[0].start : 0;

	/*
	 * A range a step, and a step begins a start or passes an end: 2n + 1
	 * at most. Allocated once (only what is written is touched, where
	 * doubling copies it all), then trimmed.
	 */
	alloc = 2 * n + 1;
	ix->ranges = elfsym_alloc(alloc, sizeof(*ix->ranges));
	stack[0] = room;
	stack[1] = stack[0] + n;
	stack[2] = stack[1] + n;
	for (;;) {
		uint32_t j = i, best = ELFSYM_NONE;
		uint64_t next = UINT64_MAX;
		bool more = false;

		while (j < n && ix->syms[j].start == pos)
			j++;
		/* The sized ones first: they decide which zero-size ones are labels. */
		for (uint32_t k = j; k-- > i;) {
			const struct elfsym *s = &ix->syms[k];

			if (s->sized && s->end > s->start) {
				int c = elfsym_class(s);

				stack[c][depth[c]++] = k;
			}
		}
		for (int c = 0; c < 3; c++)
			while (depth[c] && ix->syms[stack[c][depth[c] - 1]].end <= pos)
				depth[c]--;
		for (uint32_t k = j; k-- > i;) {
			struct elfsym *s = &ix->syms[k];

			if (s->sized)
				continue;
			if (depth[0] || depth[1])
				s->label = true;
			else if (s->end > s->start)
				stack[2][depth[2]++] = k;
		}
		i = j;
		for (int c = 0; c < 3 && best == ELFSYM_NONE; c++)
			if (depth[c])
				best = stack[c][depth[c] - 1];
		elfsym_range_add(ix, &alloc, pos, best);
		if (i < n) {
			next = ix->syms[i].start;
			more = true;
		}
		if (best != ELFSYM_NONE && ix->syms[best].end <= next) {
			next = ix->syms[best].end;
			more = true;
		}
		if (!more)
			break;
		pos = next;
	}
	/* It stops only where no symbol is left: the last range has none. */
}

/* Sort the n aliases at group (one start) by elfsym_cmp(). */
static void
elfsym_sort_group(struct elfsym *group, uint32_t n)
{
	if (n > 16) {
		qsort(group, n, sizeof(*group), elfsym_cmp);
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		struct elfsym s = group[i];
		uint32_t j = i;

		for (; j > 0 && elfsym_cmp(&group[j - 1], &s) > 0; j--)
			group[j] = group[j - 1];
		group[j] = s;
	}
}

/*
 * The array's order: the keys (start, place in the table) are radix-sorted,
 * which leaves each start's aliases in the table's order, and only those
 * groups of aliases, mostly of one symbol, are sorted by preference.
 * The symbols move in place, a cycle of the permutation at a time: no
 * second array. Fresh memory is what costs here (a page fault a page,
 * 15 us on a VM, against 40 ns a symbol to move), and the keys' memory
 * serves the sweep next: keys is 2 * n keys, left to the caller.
 */
static void
elfsym_sort(struct elfsym_index *ix, struct elfsym_key *keys)
{
	uint32_t n = ix->nr_syms;
	struct elfsym_key *sorted;
	struct elfsym *syms = ix->syms;

	for (uint32_t k = 0; k < n; k++) {
		keys[k].key = ix->syms[k].start;
		keys[k].sym = k;
	}
	sorted = elfsym_sort_keys(keys, keys + n, n);
	/* Place k takes symbol sorted[k].sym; a placed one points to itself. */
	for (uint32_t i = 0; i < n; i++) {
		struct elfsym first;
		uint32_t j = i;

		if (sorted[i].sym == i)
			continue;
		first = syms[i];
		while (sorted[j].sym != i) {
			uint32_t from = sorted[j].sym;

			syms[j] = syms[from];
			sorted[j].sym = j;
			j = from;
		}
		syms[j] = first;
		sorted[j].sym = j;
	}
	for (uint32_t i = 0, j = 0; i < n; i = j) {
		while (j < n && syms[j].start == syms[i].start)
			j++;
		if (j - i > 1)
			elfsym_sort_group(syms + i, j - i);
	}
}

void
elfsym_index_finish(struct elfsym_index *ix)
{
	uint32_t n = ix->nr_syms;
	struct elfsym_key *room; /* the sort's 2n keys, then the sweep's 3n stack slots */

	if (ix->finished)
		BUG("elfsym_index_finish() twice");
	ix->finished = true;
	room = elfsym_alloc(2 * (size_t)n + 1, sizeof(*room));
	if (n > 1)
		elfsym_sort(ix, room);
	/* A zero-size symbol reaches to the next start, within its limit. */
	for (uint32_t i = 0, j = 0; i < n; i = j) {
		while (j < n && ix->syms[j].start == ix->syms[i].start)
			j++;
		for (uint32_t k = i; k < j; k++)
			if (!ix->syms[k].sized && j < n && ix->syms[k].end > ix->syms[j].start)
				ix->syms[k].end = ix->syms[j].start;
	}
	elfsym_sweep(ix, (uint32_t *)room);
	free(room);
}

static bool
elfsym_range_before(const void *elem, const void *key)
{
	return ((const struct elfsym_range *)elem)->start <= *(const uint64_t *)key;
}

const struct elfsym *
elfsym_index_lookup(const struct elfsym_index *ix, uint64_t addr)
{
	size_t r = bsearch_first(ix->ranges, ix->nr_ranges, sizeof(*ix->ranges),
				 &addr, elfsym_range_before);

	/* r is the first range starting after addr: addr is in the one before. */
	if (!r || ix->ranges[r - 1].sym == ELFSYM_NONE)
		return NULL;
	return &ix->syms[ix->ranges[r - 1].sym];
}

static unsigned
elfsym_underscores(const char *name)
{
	unsigned n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/* Does perf keep a rather than b, of two symbols at one address? */
static bool
elfsym_perf_prefers(const struct elfsym *a, const struct elfsym *b)
{
	unsigned ua, ub;
	size_t na, nb;

	if (a->sized != b->sized)
		return a->sized;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	ua = elfsym_underscores(a->name);
	ub = elfsym_underscores(b->name);
	if (ua != ub)
		return ua < ub;
	na = strlen(a->name);
	nb = strlen(b->name);
	if (na != nb)
		return na > nb;
	return a->order < b->order;
}

const struct elfsym *
elfsym_index_perf_symbol(const struct elfsym_index *ix, uint64_t addr)
{
	const struct elfsym *es = elfsym_index_lookup(ix, addr), *best = NULL;
	uint32_t first;

	if (!es)
		return NULL;
	first = (uint32_t)(es - ix->syms);
	while (first > 0 && ix->syms[first - 1].start == es->start)
		first--;
	for (uint32_t k = first; k < ix->nr_syms && ix->syms[k].start == es->start; k++) {
		const struct elfsym *s = &ix->syms[k];

		if (!s->label && (!best || elfsym_perf_prefers(s, best)))
			best = s;
	}
	return best ? best : es;
}

/* The name table's key for a name: 32 bits of its hash. */
static uint64_t
elfsym_name_key(const char *name)
{
	return hash_bytes(name, strlen(name), 0) >> 32;
}


/*
 * The name table: every symbol's name key and index in one value, the
 * key above, so that sorting the values (the radix sort) orders them by
 * key and then by index: the symbols of one name come in the array's
 * order. Names are compared only where keys are equal. Eight bytes a
 * symbol, and as many for the sort: the memory is most of the cost.
 */
static void
elfsym_build_names(struct elfsym_index *ix)
{
	uint32_t n = ix->nr_syms;
	uint64_t *v = elfsym_alloc(2 * (size_t)n + 1, sizeof(*v));
	uint64_t *sorted;

	for (uint32_t k = 0; k < n; k++)
		v[k] = elfsym_name_key(ix->syms[k].name) << 32 | k;
	sorted = radix_sort(v, v + n, n, sizeof(*v), 0, 8);
	if (sorted != v)
		memcpy(v, sorted, n * sizeof(*v));
	ix->by_name = v;
}

static bool
elfsym_name_before(const void *elem, const void *key)
{
	return *(const uint64_t *)elem >> 32 < *(const uint64_t *)key;
}

static bool
elfsym_covers(const struct elfsym *s, uint64_t addr)
{
	return addr >= s->start && addr < s->end;
}

int
elfsym_index_name_covers(struct elfsym_index *ix, const char *name,
			 uint64_t addr)
{
	const struct elfsym *s = elfsym_index_lookup(ix, addr);
	uint64_t key;
	size_t i;
	int found = -1;

	if (!ix->finished)
		BUG("elfsym_index_name_covers() before elfsym_index_finish()");
	/* perf's name is mostly the one chosen here or an alias of it. */
	if (s) {
		for (i = (size_t)(s - ix->syms); i > 0 && ix->syms[i - 1].start == s->start; i--)
			;
		for (; i < ix->nr_syms && ix->syms[i].start == s->start; i++)
			if (elfsym_covers(&ix->syms[i], addr) && !strcmp(ix->syms[i].name, name))
				return 1;
	}
	if (!ix->by_name)
		elfsym_build_names(ix);
	key = elfsym_name_key(name);
	i = bsearch_first(ix->by_name, ix->nr_syms, sizeof(*ix->by_name), &key,
			  elfsym_name_before);
	for (; i < ix->nr_syms && ix->by_name[i] >> 32 == key; i++) {
		s = &ix->syms[(uint32_t)ix->by_name[i]];
		if (strcmp(s->name, name))
			continue;
		if (elfsym_covers(s, addr))
			return 1;
		found = 0;
	}
	return found;
}

static int
elfsym_check_syms(const struct elfsym_index *ix, struct tf_error *err)
{
	uint32_t n = ix->nr_syms;

	for (uint32_t k = 0; k < n; k++) {
		const struct elfsym *s = &ix->syms[k];

		if (!s->name || !*s->name)
			return tf_error_set(err, "elfsym: symbol %u has no name", k);
		if (s->end < s->start)
			return tf_error_set(err, "elfsym: %s ends before it starts",
					    elfsym_name(ix, s));
		if (s->label && s->sized)
			return tf_error_set(err, "elfsym: %s is a label with a size",
					    elfsym_name(ix, s));
		if (k && elfsym_cmp(&ix->syms[k - 1], s) >= 0)
			return tf_error_set(err, "elfsym: symbols %u and %u out of order",
					    k - 1, k);
		if (!s->sized && k + 1 < n && s->start != ix->syms[k + 1].start &&
		    s->end > ix->syms[k + 1].start)
			return tf_error_set(err, "elfsym: zero-size %s runs past the next "
					    "symbol", elfsym_name(ix, s));
	}
	return 0;
}

/* Every symbol once, under its name's key, by key and then index. */
static int
elfsym_check_names(const struct elfsym_index *ix, struct tf_error *err)
{
	uint32_t n = ix->nr_syms;
	uint8_t *seen;

	if (!ix->by_name)
		return 0;
	seen = xcalloc(n ? n : 1, 1);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = ix->by_name[i];
		uint32_t sym = (uint32_t)v;

		if (sym >= n || seen[sym]++ || v >> 32 != elfsym_name_key(ix->syms[sym].name) ||
		    (i && v <= ix->by_name[i - 1])) {
			free(seen);
			return tf_error_set(err, "elfsym: the name table is broken at %u",
					    i);
		}
	}
	free(seen);
	return 0;
}

static int
elfsym_check_ranges(const struct elfsym_index *ix, struct tf_error *err)
{
	for (uint32_t r = 0; r < ix->nr_ranges; r++) {
		const struct elfsym_range *g = &ix->ranges[r];
		const struct elfsym *s;
		uint64_t end = r + 1 < ix->nr_ranges ? ix->ranges[r + 1].start : UINT64_MAX;

		if (r + 1 < ix->nr_ranges && g->start >= end)
			return tf_error_set(err, "elfsym: ranges %u and %u out of order",
					    r, r + 1);
		if (r && g->sym == ix->ranges[r - 1].sym)
			return tf_error_set(err, "elfsym: ranges %u and %u not merged",
					    r - 1, r);
		if (g->sym == ELFSYM_NONE)
			continue;
		if (r + 1 == ix->nr_ranges)
			return tf_error_set(err, "elfsym: the last range has a symbol");
		if (g->sym >= ix->nr_syms)
			return tf_error_set(err, "elfsym: range %u names symbol %u of %u",
					    r, g->sym, ix->nr_syms);
		s = &ix->syms[g->sym];
		if (s->label || g->start < s->start || end > s->end)
			return tf_error_set(err, "elfsym: range %u [%#llx, %#llx) is not "
					    "within %s", r, (unsigned long long)g->start,
					    (unsigned long long)end, elfsym_name(ix, s));
	}
	if (ix->nr_ranges == 0)
		return tf_error_set(err, "elfsym: no ranges");
	return 0;
}

int
elfsym_index_check(const struct elfsym_index *ix, struct tf_error *err)
{
	if (!ix->finished)
		return ix->nr_ranges || ix->by_name ?
			tf_error_set(err, "elfsym: tables before finishing") : 0;
	if (elfsym_check_syms(ix, err) || elfsym_check_names(ix, err))
		return -1;
	return elfsym_check_ranges(ix, err);
}
