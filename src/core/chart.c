#include "config.h"

#include "tflame/chart.h"

#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/xalloc.h"

/*
 * Building the chart: a walk over the selected samples in time order that
 * keeps the open path, the box open at each depth. A sample's stack is
 * compared with the open path from its leaf upwards, and stacks are
 * interned on (parent, frame), so the first ancestor that is the open
 * stack of its depth ends the comparison: the rest of the path above it is
 * the same. Boxes below that depth close and new ones open. The work per
 * sample is the number of frames that change, never the whole depth, and
 * nothing recurses.
 *
 * The walk runs twice. The first pass only counts the boxes of each depth;
 * then every box has a known slot (row_start[d] plus how many of its depth
 * opened before it), so the second pass writes boxes straight into one
 * exact allocation, sorted by depth and x with no sort and no copy.
 *
 * Times: perf samples have no duration, so a box ends at the time of the
 * first selected sample after it, or, for boxes still open at the end, at
 * the time of the last sample. A profile with spans (trace events) says
 * how long each sample lasted: a box ends where its last sample ended,
 * even when a gap follows. Zero-weight samples cover no x and are
 * skipped altogether: they neither open nor split boxes.
 */

struct walk {
	const struct profile_set *ps;
	struct chart *c;      /* boxes are written when c->boxes is set */
	stack_id *open_stack; /* per depth: the stack of the open box */
	uint32_t *open_box;   /* per depth: its index in c->boxes */
	uint32_t nr_open, alloc_open;
	uint32_t *count;      /* per depth: boxes opened so far */
	uint32_t alloc_count;
	uint64_t x;
	bool spans;           /* samples last their weight: see profile.h */
	int64_t end;          /* with spans, where the last sample ended */
};

static void
grow_depth(struct walk *w, uint32_t depth)
{
	uint32_t old = w->alloc_count;

	if (depth <= w->alloc_open && depth <= w->alloc_count)
		return;
	if (depth > w->alloc_open) {
		uint32_t n = w->alloc_open ? w->alloc_open : 64;

		while (n < depth)
			n *= 2;
		w->open_stack = xreallocarray(w->open_stack, n, sizeof(*w->open_stack));
		w->open_box = xreallocarray(w->open_box, n, sizeof(*w->open_box));
		w->alloc_open = n;
	}
	if (depth > w->alloc_count) {
		uint32_t n = w->alloc_count ? w->alloc_count : 64;

		while (n < depth)
			n *= 2;
		w->count = xreallocarray(w->count, n, sizeof(*w->count));
		memset(w->count + old, 0, sizeof(*w->count) * (n - old));
		w->alloc_count = n;
	}
}

/*
 * Close the open boxes at depths [from, nr_open), ending at x and at time
 * t, the time of what comes next, or, with spans, where the last sample
 * ended.
 */
static void
close_boxes(struct walk *w, uint32_t from, int64_t t)
{
	struct chart_box *boxes = w->c->boxes;

	if (w->spans)
		t = w->end;

	if (boxes) {
		for (uint32_t d = from; d < w->nr_open; d++) {
			boxes[w->open_box[d]].x1 = w->x;
			boxes[w->open_box[d]].t1 = t;
		}
	}
	w->nr_open = from;
}

static void
walk_sample(struct walk *w, stack_id s, uint64_t weight, int64_t t, thread_id thread)
{
	const struct stack_node *stacks = w->ps->stacks;
	struct chart_box *boxes = w->c->boxes;
	uint32_t depth = stacks[s].depth, keep;
	stack_id u = s;

	/* The deepest ancestor of s (or s) that is open at its depth. */
	while (stacks[u].depth > w->nr_open)
		u = stacks[u].parent;
	while (u != STACK_ROOT && w->open_stack[stacks[u].depth - 1] != u)
		u = stacks[u].parent;
	keep = stacks[u].depth;
	close_boxes(w, keep, t);

	grow_depth(w, depth);
	/* Open boxes from the leaf up; link each to its parent afterwards. */
	for (u = s; stacks[u].depth > keep; u = stacks[u].parent) {
		uint32_t d = stacks[u].depth - 1;
		uint32_t i = w->c->row_start ? w->c->row_start[d] + w->count[d] : 0;

		w->count[d]++;
		w->open_stack[d] = u;
		w->open_box[d] = i;
		if (boxes) {
			boxes[i].x0 = w->x;
			boxes[i].t0 = t;
			boxes[i].stack = u;
			boxes[i].depth = d;
			boxes[i].thread = thread;
		}
	}
	if (boxes)
		for (uint32_t d = keep; d < depth; d++)
			boxes[w->open_box[d]].parent = d ? w->open_box[d - 1] : CHART_NONE;
	w->nr_open = depth;
	w->x += weight;
	if (w->spans)
		w->end = profile_span_end(t, weight);
}

/* Sort key of a sample: its thread's rank, then its time. */
struct sample_key {
	const uint32_t *rank;   /* per thread: order of first appearance */
	const thread_id *thread;
	const int64_t *time;    /* NULL when the profile has no times */
};

static bool
key_less(const struct sample_key *k, uint32_t a, uint32_t b)
{
	uint32_t ra = k->rank[k->thread[a]], rb = k->rank[k->thread[b]];

	if (ra != rb)
		return ra < rb;
	return k->time && k->time[a] < k->time[b];
}

/*
 * Stable sort of sample indices by key: a bottom-up merge sort (qsort is
 * not stable and has no context). Returns the sorted array, which is either
 * a or tmp.
 */
static uint32_t *
sort_samples(const struct sample_key *key, uint32_t *a, uint32_t *tmp, uint32_t n)
{
	for (uint32_t width = 1; width < n; width = width > n / 2 ? n : width * 2) {
		uint32_t *swap;

		for (uint32_t lo = 0; lo < n; lo += 2 * width) {
			uint32_t mid = n - lo > width ? lo + width : n;
			uint32_t hi = n - mid > width ? mid + width : n;
			uint32_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				tmp[k++] = key_less(key, a[j], a[i]) ? a[j++] : a[i++];
			while (i < mid)
				tmp[k++] = a[i++];
			while (j < hi)
				tmp[k++] = a[j++];
		}
		swap = a;
		a = tmp;
		tmp = swap;
	}
	return a;
}

/*
 * Order the samples of a by key: a counting sort on the thread's rank (one
 * pass to count, one to place, so interleaved threads cost O(n)), then a
 * stable sort by time of any thread whose samples are out of time order.
 * Returns the sorted array, a or tmp.
 */
static uint32_t *
group_by_thread(const struct sample_key *key, uint32_t nr_ranks, uint32_t *a, uint32_t *tmp,
		uint32_t n)
{
	uint32_t *start = xcalloc((size_t)nr_ranks + 1, sizeof(*start));
	uint32_t *scratch = NULL;

	for (uint32_t k = 0; k < n; k++)
		start[key->rank[key->thread[a[k]]] + 1]++;
	for (uint32_t r = 0; r < nr_ranks; r++)
		start[r + 1] += start[r];
	for (uint32_t k = 0; k < n; k++)
		tmp[start[key->rank[key->thread[a[k]]]]++] = a[k];
	/* start[r] is now the end of rank r's run. */
	for (uint32_t r = 0, lo = 0; r < nr_ranks && key->time; lo = start[r++]) {
		bool in_order = true;

		for (uint32_t k = lo + 1; k < start[r] && in_order; k++)
			in_order = key->time[tmp[k - 1]] <= key->time[tmp[k]];
		if (in_order)
			continue;
		if (!scratch)
			scratch = xmalloc(sizeof(*scratch) * ((size_t)n + 1));
		if (sort_samples(key, tmp + lo, scratch + lo, start[r] - lo) != tmp + lo)
			memcpy(tmp + lo, scratch + lo, sizeof(*tmp) * (start[r] - lo));
	}
	free(scratch);
	free(start);
	return tmp;
}

void
chart_build(struct chart *c, const struct profile_set *ps, const struct profile *p,
	    const struct sample_filter *filter)
{
	const bool *keep = filter ? filter->threads : NULL;
	uint32_t *order, *tmp, *sorted, *rank, n = 0, nr_ranked = 0;
	struct sample_key key;
	bool in_order = true;
	struct walk w;

	memset(c, 0, sizeof(*c));
	c->ps = ps;
	c->has_time = p->has_time;
	if (p->nr_samples >= UINT32_MAX)
		die("too many samples for the flame chart");

	rank = xmalloc(sizeof(*rank) * ((size_t)ps->nr_threads + 1));
	for (uint32_t t = 0; t < ps->nr_threads; t++)
		rank[t] = UINT32_MAX;
	key.rank = rank;
	key.thread = p->thread;
	key.time = p->has_time ? p->time : NULL;
	order = xmalloc(sizeof(*order) * (p->nr_samples + 1));
	for (size_t i = 0; i < p->nr_samples; i++) {
		if (!p->weight[i] || (keep && !keep[p->thread[i]]))
			continue;
		if (rank[p->thread[i]] == UINT32_MAX)
			rank[p->thread[i]] = nr_ranked++;
		if (n && key_less(&key, (uint32_t)i, order[n - 1]))
			in_order = false;
		order[n++] = (uint32_t)i;
	}
	sorted = order;
	tmp = NULL;
	/* A single thread's perf samples are in time order already. */
	if (!in_order) {
		tmp = xmalloc(sizeof(*tmp) * ((size_t)n + 1));
		sorted = group_by_thread(&key, nr_ranked, order, tmp, n);
	}

	memset(&w, 0, sizeof(w));
	w.ps = ps;
	w.c = c;
	w.spans = p->spans && p->has_time;
	for (int pass = 0; pass < 2; pass++) {
		w.nr_open = 0;
		w.x = 0;
		if (pass) {
			uint32_t rows = 0, total = 0;

			for (uint32_t d = 0; d < w.alloc_count; d++)
				if (w.count[d])
					rows = d + 1;
			c->nr_rows = rows;
			c->row_start = xmalloc(sizeof(*c->row_start) * ((size_t)rows + 1));
			for (uint32_t d = 0; d < rows; d++) {
				c->row_start[d] = total;
				if (w.count[d] > UINT32_MAX - 1 - total)
					die("too many boxes for the flame chart");
				total += w.count[d];
				w.count[d] = 0;
			}
			c->row_start[rows] = total;
			c->nr_boxes = total;
			c->boxes = xmalloc(sizeof(*c->boxes) * ((size_t)total + 1));
		}
		for (uint32_t k = 0; k < n; k++) {
			uint32_t i = sorted[k];

			/*
			 * A thread's timeline ends where the next begins: its
			 * boxes close at its own last sample, and never merge
			 * with the next thread's.
			 */
			if (k && p->thread[i] != p->thread[sorted[k - 1]])
				close_boxes(&w, 0, key.time ? key.time[sorted[k - 1]] : 0);
			walk_sample(&w, p->stack[i], p->weight[i], key.time ? key.time[i] : 0,
				    p->thread[i]);
		}
		close_boxes(&w, 0, n && key.time ? key.time[sorted[n - 1]] : 0);
	}
	c->total = w.x;

	free(w.open_stack);
	free(w.open_box);
	free(w.count);
	free(order);
	free(tmp);
	free(rank);
}

void
chart_release(struct chart *c)
{
	free(c->boxes);
	free(c->row_start);
	memset(c, 0, sizeof(*c));
}

uint32_t
chart_find(const struct chart *c, uint32_t depth, uint64_t x)
{
	uint32_t lo, hi;

	if (depth >= c->nr_rows)
		return CHART_NONE;
	lo = c->row_start[depth];
	hi = c->row_start[depth + 1];
	/* The first box of the row that ends after x. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->boxes[mid].x1 > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo < c->row_start[depth + 1] && c->boxes[lo].x0 <= x)
		return lo;
	return CHART_NONE;
}

static int
check_box(const struct chart *c, uint32_t d, uint32_t i, struct tf_error *err)
{
	const struct profile_set *ps = c->ps;
	const struct chart_box *b = &c->boxes[i];

	if (b->depth != d)
		return tf_error_set(err, "box %u: depth %u in row %u", i, b->depth, d);
	if (b->x0 >= b->x1 || b->x1 > c->total)
		return tf_error_set(err, "box %u: x [%llu, %llu) in a total of %llu", i,
				    (unsigned long long)b->x0, (unsigned long long)b->x1,
				    (unsigned long long)c->total);
	if (c->has_time && b->t0 > b->t1)
		return tf_error_set(err, "box %u: ends before it starts", i);
	if (b->stack == STACK_ROOT || b->stack >= ps->nr_stacks ||
	    ps->stacks[b->stack].depth != d + 1)
		return tf_error_set(err, "box %u: stack %u is not of depth %u", i, b->stack,
				    d + 1);
	if (i > c->row_start[d]) {
		const struct chart_box *prev = b - 1;

		if (prev->x1 > b->x0)
			return tf_error_set(err, "box %u overlaps or precedes box %u", i, i - 1);
		if (prev->x1 == b->x0 && prev->stack == b->stack && prev->thread == b->thread)
			return tf_error_set(err, "boxes %u and %u: same stack, not merged", i - 1,
					    i);
	}
	if (!d) {
		if (b->parent != CHART_NONE)
			return tf_error_set(err, "box %u: a parent at depth 0", i);
		return 0;
	}
	if (b->parent < c->row_start[d - 1] || b->parent >= c->row_start[d])
		return tf_error_set(err, "box %u: parent %u is not one row up", i, b->parent);
	if (c->boxes[b->parent].x0 > b->x0 || c->boxes[b->parent].x1 < b->x1)
		return tf_error_set(err, "box %u is not inside its parent %u", i, b->parent);
	if (ps->stacks[b->stack].parent != c->boxes[b->parent].stack)
		return tf_error_set(err, "box %u: parent box %u is not its caller", i, b->parent);
	if (c->boxes[b->parent].thread != b->thread)
		return tf_error_set(err, "box %u: parent box %u is another thread's", i, b->parent);
	if (c->has_time && c->boxes[b->parent].t0 > b->t0)
		return tf_error_set(err, "box %u starts before its parent", i);
	return 0;
}

int
chart_check(const struct chart *c, struct tf_error *err)
{
	if (!c->row_start)
		return c->nr_boxes || c->nr_rows ? tf_error_set(err, "boxes but no rows") : 0;
	if (c->row_start[0] != 0 || c->row_start[c->nr_rows] != c->nr_boxes)
		return tf_error_set(err, "rows cover [%u, %u) of %u boxes", c->row_start[0],
				    c->row_start[c->nr_rows], c->nr_boxes);
	for (uint32_t d = 0; d < c->nr_rows; d++) {
		if (c->row_start[d] >= c->row_start[d + 1])
			return tf_error_set(err, "row %u is empty or reversed", d);
		for (uint32_t i = c->row_start[d]; i < c->row_start[d + 1]; i++)
			if (check_box(c, d, i, err))
				return -1;
	}
	return 0;
}
