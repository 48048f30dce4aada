#include "config.h"

#include "tflame/chart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * Building a chart: a walk over its positions in time order that keeps
 * the open path, the box open at each depth. A sample's stack is compared
 * with the open path from its leaf upwards, and stacks are interned on
 * (parent, frame), so the first ancestor that is the open stack of its
 * depth ends the comparison: the rest of the path above it is the same.
 * Boxes below that depth close and new ones open. The work per sample is
 * the number of frames that change, never the whole depth, and nothing
 * recurses. A gap in time (chart_gap()) closes every box.
 *
 * The walk runs twice. The first pass only counts the boxes of each depth;
 * then every box has a known slot (row_start[d] plus how many of its depth
 * opened before it), so the second pass writes boxes straight into exact
 * allocations, sorted by depth and x with no sort and no copy.
 */

/* Checkpoints of chart.busy: one per this many positions. */
#define BUSY_STEP 64

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* a * b / c without overflow (c > 0; the result fits when a <= c). */
static uint64_t
mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return (uint64_t)((unsigned __int128)a * b / c);
}

uint64_t
chart_pos_x0(const struct chart *c, uint32_t k)
{
	if (c->axis.kind == CHART_X_WEIGHT)
		return c->cum[k];
	return (uint64_t)c->p->time[c->sample[k]] - (uint64_t)c->axis.origin;
}

uint64_t
chart_pos_x1(const struct chart *c, uint32_t k)
{
	uint64_t x, next;

	if (c->axis.kind == CHART_X_WEIGHT)
		return c->cum[k + 1];
	x = chart_pos_x0(c, k);
	next = k + 1 < c->nr_samples ? chart_pos_x0(c, k + 1) : UINT64_MAX;
	if (c->axis.kind == CHART_X_SPANS) {
		uint64_t end = sat_add(x, c->p->weight[c->sample[k]]);

		return end < next ? end : next;
	}
	if (next - x <= c->axis.cap)
		return next;
	return sat_add(x, c->axis.period);
}

/* Is there a gap between positions k - 1 and k, which no box spans? */
static bool
chart_gap(const struct chart *c, uint32_t k)
{
	if (c->axis.kind == CHART_X_WEIGHT)
		return c->p->thread[c->sample[k]] != c->p->thread[c->sample[k - 1]];
	return chart_pos_x1(c, k - 1) < chart_pos_x0(c, k);
}

/* ------------------------------------------------------------ the walk */

struct walk {
	const struct profile_set *ps;
	struct chart *c;      /* boxes are written when c->stack is set */
	stack_id *open_stack; /* per depth: the stack of the open box */
	uint32_t *open_box;   /* per depth: its index */
	uint32_t nr_open, alloc_open;
	uint32_t *count;      /* per depth: boxes opened so far */
	uint32_t alloc_count;
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

/* Close the open boxes at depths [from, nr_open) before position k. */
static void
close_boxes(struct walk *w, uint32_t from, uint32_t k)
{
	if (w->c->stack)
		for (uint32_t d = from; d < w->nr_open; d++)
			w->c->end[w->open_box[d]] = k;
	w->nr_open = from;
}

static void
walk_sample(struct walk *w, stack_id s, uint32_t k)
{
	const struct stack_node *stacks = w->ps->stacks;
	struct chart *c = w->c;
	uint32_t depth = stacks[s].depth, keep;
	stack_id u = s;

	/* The deepest ancestor of s (or s) that is open at its depth. */
	while (stacks[u].depth > w->nr_open)
		u = stacks[u].parent;
	while (u != STACK_ROOT && w->open_stack[stacks[u].depth - 1] != u)
		u = stacks[u].parent;
	keep = stacks[u].depth;
	close_boxes(w, keep, k);

	grow_depth(w, depth);
	for (u = s; stacks[u].depth > keep; u = stacks[u].parent) {
		uint32_t d = stacks[u].depth - 1;
		uint32_t i = c->row_start ? c->row_start[d] + w->count[d] : 0;

		w->count[d]++;
		w->open_stack[d] = u;
		w->open_box[d] = i;
		if (c->stack) {
			c->first[i] = k;
			c->stack[i] = u;
		}
	}
	w->nr_open = depth;
}

/* Make c's boxes from its positions. */
static void
build_boxes(struct chart *c)
{
	const struct profile *p = c->p;
	struct walk w;

	memset(&w, 0, sizeof(w));
	w.ps = c->ps;
	w.c = c;
	for (int pass = 0; pass < 2; pass++) {
		w.nr_open = 0;
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
			c->first = xmalloc(sizeof(*c->first) * ((size_t)total + 1));
			c->end = xmalloc(sizeof(*c->end) * ((size_t)total + 1));
			c->stack = xmalloc(sizeof(*c->stack) * ((size_t)total + 1));
		}
		for (uint32_t k = 0; k < c->nr_samples; k++) {
			if (k && chart_gap(c, k))
				close_boxes(&w, 0, k);
			walk_sample(&w, p->stack[c->sample[k]], k);
		}
		close_boxes(&w, 0, c->nr_samples);
	}
	free(w.open_stack);
	free(w.open_box);
	free(w.count);
}

/* Fill c->busy, and c->x_begin and c->x_end. */
static void
build_busy(struct chart *c)
{
	uint64_t sum = 0;

	c->busy = xmalloc(sizeof(*c->busy) * ((size_t)c->nr_samples / BUSY_STEP + 1));
	for (uint32_t k = 0; k < c->nr_samples; k++) {
		if (!(k % BUSY_STEP))
			c->busy[k / BUSY_STEP] = sum;
		sum += chart_pos_x1(c, k) - chart_pos_x0(c, k);
	}
	if (!(c->nr_samples % BUSY_STEP))
		c->busy[c->nr_samples / BUSY_STEP] = sum;
	if (c->nr_samples) {
		c->x_begin = chart_pos_x0(c, 0);
		c->x_end = chart_pos_x1(c, c->nr_samples - 1);
	}
}

/*
 * Make a chart of the positions sample[n] (owned by it from now), in
 * time order and with no two at the same time; cum_base is where a
 * CHART_X_WEIGHT chart starts.
 */
static void
chart_make(struct chart *c, const struct timeline *tl, thread_id thread, uint32_t *sample,
	   uint32_t n, uint64_t cum_base)
{
	const struct profile *p = tl->p;

	memset(c, 0, sizeof(*c));
	c->ps = tl->ps;
	c->p = p;
	c->axis = tl->axis;
	c->total = tl->axis.total;
	c->has_time = tl->axis.kind != CHART_X_WEIGHT;
	c->thread = thread;
	c->sample = sample;
	c->nr_samples = n;
	for (uint32_t k = 0; k < n; k++)
		c->weight += p->weight[sample[k]];
	if (tl->axis.kind == CHART_X_WEIGHT) {
		c->cum = xmalloc(sizeof(*c->cum) * ((size_t)n + 1));
		c->cum[0] = cum_base;
		for (uint32_t k = 0; k < n; k++)
			c->cum[k + 1] = c->cum[k] + p->weight[sample[k]];
	}
	build_boxes(c);
	build_busy(c);
}

static void
chart_release(struct chart *c)
{
	if (!c->borrowed) {
		free(c->sample);
		free(c->cum);
		free(c->busy);
		free(c->first);
		free(c->end);
		free(c->stack);
		free(c->row_start);
	}
	memset(c, 0, sizeof(*c));
}

static size_t
chart_memory(const struct chart *c)
{
	if (c->borrowed)
		return 0;
	return sizeof(*c) + (size_t)c->nr_samples * sizeof(*c->sample) +
	       (c->cum ? ((size_t)c->nr_samples + 1) * sizeof(*c->cum) : 0) +
	       ((size_t)c->nr_samples / BUSY_STEP + 1) * sizeof(*c->busy) +
	       (size_t)c->nr_boxes * (sizeof(*c->first) + sizeof(*c->end) + sizeof(*c->stack)) +
	       ((size_t)c->nr_rows + 1) * sizeof(*c->row_start);
}

/* ------------------------------------------------------------ ordering */

/*
 * Sort the sample indices a[n] by time, stably: a merge of the runs
 * already in order, pairwise, so samples in time order cost one pass and
 * the lanes of a merged chart log2(lanes) passes. tmp has room for n.
 * Returns the sorted array, a or tmp.
 */
static uint32_t *
sort_by_time(const int64_t *time, uint32_t *a, uint32_t *tmp, uint32_t n)
{
	uint32_t *bounds, nr = 0;

	for (uint32_t k = 1; k < n; k++)
		if (time[a[k]] < time[a[k - 1]])
			nr++;
	if (!nr)
		return a;
	bounds = xmalloc(sizeof(*bounds) * ((size_t)nr + 2));
	nr = 0;
	bounds[nr++] = 0;
	for (uint32_t k = 1; k < n; k++)
		if (time[a[k]] < time[a[k - 1]])
			bounds[nr++] = k;
	bounds[nr] = n;
	/* nr runs: [bounds[r], bounds[r + 1]) */
	while (nr > 1) {
		uint32_t out = 0, *swap;

		for (uint32_t r = 0; r < nr; r += 2) {
			/* Runs r and r + 1 (none past the last: bounds[nr] is n). */
			uint32_t lo = bounds[r], mid = bounds[r + 1];
			uint32_t hi = r + 2 <= nr ? bounds[r + 2] : mid;
			uint32_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				tmp[k++] = time[a[j]] < time[a[i]] ? a[j++] : a[i++];
			while (i < mid)
				tmp[k++] = a[i++];
			while (j < hi)
				tmp[k++] = a[j++];
			bounds[out++] = lo;
		}
		bounds[out] = n;
		nr = out;
		swap = a;
		a = tmp;
		tmp = swap;
	}
	free(bounds);
	return a;
}

/*
 * Of samples at the same time, keep the first: the others would last no
 * time. Returns the new count.
 */
static uint32_t
drop_same_time(const int64_t *time, uint32_t *a, uint32_t n)
{
	uint32_t out = 0;

	for (uint32_t k = 0; k < n; k++)
		if (!out || time[a[k]] != time[a[out - 1]])
			a[out++] = a[k];
	return out;
}

/* The positions of a chart: a[n] in time order, copied. */
static uint32_t *
order_positions(const struct timeline *tl, const uint32_t *a, uint32_t *n, uint32_t *tmp)
{
	uint32_t *out = xmalloc(sizeof(*out) * ((size_t)*n + 1));

	memcpy(out, a, sizeof(*out) * *n);
	if (tl->axis.kind != CHART_X_WEIGHT) {
		uint32_t *sorted = sort_by_time(tl->p->time, out, tmp, *n);

		if (sorted != out)
			memcpy(out, sorted, sizeof(*out) * *n);
		*n = drop_same_time(tl->p->time, out, *n);
	}
	return out;
}

/* ------------------------------------------------------------ the axis */

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define PERIOD_GAPS 65536

uint64_t
chart_axis_period(const struct profile *p)
{
	/*
	 * Why the lower quartile: a thread that runs all the time has every
	 * gap one period long, but most threads also sleep, and their sleeps
	 * are gaps too. The quartile is still the period as long as a
	 * quarter of all gaps fall inside stretches of running, which holds
	 * for anything sampled often enough to look at, where the median
	 * would already be a sleep for threads that run less than half the
	 * time. Three periods then absorb the jitter of the sampling clock
	 * and a lost sample, so a running thread shows as one stretch, and
	 * any pause longer than that shows as a gap.
	 */
	uint64_t *gaps, period = 0;
	int64_t *last;
	uint8_t *seen;
	size_t nr = 0, stride;
	thread_id max_thread = 0;

	if (!p->has_time || p->nr_samples < 2)
		return 0;
	for (size_t i = 0; i < p->nr_samples; i++)
		if (p->thread[i] > max_thread)
			max_thread = p->thread[i];
	last = xmalloc(sizeof(*last) * ((size_t)max_thread + 1));
	seen = xcalloc((size_t)max_thread + 1, 1);
	stride = p->nr_samples / PERIOD_GAPS + 1;
	gaps = xmalloc(sizeof(*gaps) * (PERIOD_GAPS + 1));
	for (size_t i = 0; i < p->nr_samples; i++) {
		thread_id t = p->thread[i];

		if (!p->weight[i])
			continue;
		if (seen[t] && p->time[i] > last[t] && !(i % stride) && nr < PERIOD_GAPS)
			gaps[nr++] = (uint64_t)p->time[i] - (uint64_t)last[t];
		last[t] = p->time[i];
		seen[t] = 1;
	}
	if (nr) {
		qsort(gaps, nr, sizeof(*gaps), cmp_u64);
		period = gaps[nr / 4];
	}
	free(gaps);
	free(seen);
	free(last);
	return period;
}

/* Work out tl->axis from the selected samples sel[n]. */
static void
make_axis(struct timeline *tl, const uint32_t *sel, uint32_t n)
{
	const struct profile *p = tl->p;
	struct chart_axis *a = &tl->axis;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	uint64_t end = 0;

	memset(a, 0, sizeof(*a));
	a->kind = CHART_X_WEIGHT;
	for (uint32_t k = 0; k < n && p->has_time; k++) {
		int64_t t = p->time[sel[k]];

		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
	}
	if (!n || !p->has_time || (lo == hi && !p->spans)) {
		for (uint32_t k = 0; k < n; k++)
			a->total += p->weight[sel[k]];
		return;
	}
	a->origin = lo;
	if (p->spans) {
		a->kind = CHART_X_SPANS;
		for (uint32_t k = 0; k < n; k++) {
			uint64_t e = sat_add((uint64_t)p->time[sel[k]] - (uint64_t)lo,
					     p->weight[sel[k]]);

			end = e > end ? e : end;
		}
		a->total = end;
		return;
	}
	a->kind = CHART_X_TIME;
	a->period = chart_axis_period(p);
	if (!a->period) /* no thread sampled twice: spread the range evenly */
		a->period = ((uint64_t)hi - (uint64_t)lo) / n;
	if (!a->period)
		a->period = 1;
	a->cap = a->period > UINT64_MAX / 3 ? UINT64_MAX : a->period * 3;
	a->total = sat_add((uint64_t)hi - (uint64_t)lo, a->period);
}

/* ------------------------------------------------------------ timelines */

struct lane_key {
	uint64_t weight;
	uint32_t rank; /* order of first appearance */
	thread_id thread;
};

static int
lane_cmp(const void *a, const void *b)
{
	const struct lane_key *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

void
timeline_build(struct timeline *tl, const struct profile_set *ps, const struct profile *p,
	       const struct sample_filter *filter)
{
	const bool *keep = filter ? filter->threads : NULL;
	uint32_t *sel, *grouped, *tmp, *lane_of, *start, n = 0, nr_seen = 0;
	struct lane_key *keys;
	uint64_t cum = 0;

	memset(tl, 0, sizeof(*tl));
	tl->ps = ps;
	tl->p = p;
	if (p->nr_samples >= UINT32_MAX)
		die("too many samples for the flame chart");

	keys = xcalloc((size_t)ps->nr_threads + 1, sizeof(*keys));
	lane_of = xmalloc(sizeof(*lane_of) * ((size_t)ps->nr_threads + 1));
	for (thread_id t = 0; t < ps->nr_threads; t++)
		lane_of[t] = UINT32_MAX;
	sel = xmalloc(sizeof(*sel) * (p->nr_samples + 1));
	for (size_t i = 0; i < p->nr_samples; i++) {
		thread_id t = p->thread[i];

		if (!p->weight[i] || (keep && !keep[t]))
			continue;
		if (lane_of[t] == UINT32_MAX) {
			lane_of[t] = nr_seen;
			keys[nr_seen].rank = nr_seen;
			keys[nr_seen].thread = t;
			nr_seen++;
		}
		keys[lane_of[t]].weight += p->weight[i];
		sel[n++] = (uint32_t)i;
	}
	make_axis(tl, sel, n);

	/* Lanes heaviest first; then the samples grouped by lane, in order. */
	qsort(keys, nr_seen, sizeof(*keys), lane_cmp);
	for (uint32_t l = 0; l < nr_seen; l++)
		lane_of[keys[l].thread] = l;
	start = xcalloc((size_t)nr_seen + 1, sizeof(*start));
	for (uint32_t k = 0; k < n; k++)
		start[lane_of[p->thread[sel[k]]] + 1]++;
	for (uint32_t l = 0; l < nr_seen; l++)
		start[l + 1] += start[l];
	grouped = xmalloc(sizeof(*grouped) * ((size_t)n + 1));
	for (uint32_t k = 0; k < n; k++)
		grouped[start[lane_of[p->thread[sel[k]]]]++] = sel[k];
	/* start[l] is now the end of lane l's samples */

	tmp = sel; /* free for reuse */
	tl->lanes = xcalloc((size_t)nr_seen + 1, sizeof(*tl->lanes));
	tl->nr_lanes = nr_seen;
	for (uint32_t l = 0, lo = 0; l < nr_seen; lo = start[l++]) {
		uint32_t nr = start[l] - lo;
		uint32_t *pos = order_positions(tl, grouped + lo, &nr, tmp);

		chart_make(&tl->lanes[l], tl, keys[l].thread, pos, nr, cum);
		cum += tl->lanes[l].weight;
	}
	free(grouped);
	free(start);
	free(sel);
	free(lane_of);
	free(keys);
}

/*
 * Of the time-ordered samples a[n] of several lanes, keep those the
 * merged chart shows: one lane at a time owns the timeline while its
 * samples last (as they do in its lane); a heavier lane takes it over
 * when one of its samples starts, a lighter one only once the owner's
 * last sample has ended. Returns the new count.
 */
static uint32_t
keep_owners(const struct timeline *tl, uint32_t *a, uint32_t n)
{
	const struct profile *p = tl->p;
	uint32_t *lane = xmalloc(sizeof(*lane) * (p->nr_samples + 1));
	uint32_t *pos = xmalloc(sizeof(*pos) * (p->nr_samples + 1));
	uint32_t owner = UINT32_MAX, out = 0;
	uint64_t end = 0;

	for (uint32_t l = 0; l < tl->nr_lanes; l++) {
		for (uint32_t k = 0; k < tl->lanes[l].nr_samples; k++) {
			lane[tl->lanes[l].sample[k]] = l;
			pos[tl->lanes[l].sample[k]] = k;
		}
	}
	for (uint32_t k = 0; k < n; k++) {
		const struct chart *c = &tl->lanes[lane[a[k]]];
		uint64_t x = chart_pos_x0(c, pos[a[k]]);

		if (lane[a[k]] != owner && x < end && lane[a[k]] > owner)
			continue;
		owner = lane[a[k]];
		end = chart_pos_x1(c, pos[a[k]]);
		a[out++] = a[k];
	}
	free(pos);
	free(lane);
	return out;
}

const struct chart *
timeline_merged(struct timeline *tl)
{
	uint32_t *all, *tmp, *pos, n = 0;

	if (tl->merged_built)
		return &tl->merged;
	tl->merged_built = true;
	if (tl->nr_lanes == 1) {
		tl->merged = tl->lanes[0];
		tl->merged.borrowed = true;
		return &tl->merged;
	}
	for (uint32_t l = 0; l < tl->nr_lanes; l++)
		n += tl->lanes[l].nr_samples;
	all = xmalloc(sizeof(*all) * ((size_t)n + 1));
	tmp = xmalloc(sizeof(*tmp) * ((size_t)n + 1));
	n = 0;
	for (uint32_t l = 0; l < tl->nr_lanes; l++) {
		memcpy(all + n, tl->lanes[l].sample, sizeof(*all) * tl->lanes[l].nr_samples);
		n += tl->lanes[l].nr_samples;
	}
	pos = order_positions(tl, all, &n, tmp);
	if (tl->axis.kind != CHART_X_WEIGHT)
		n = keep_owners(tl, pos, n);
	chart_make(&tl->merged, tl, THREAD_NONE, pos, n, 0);
	free(tmp);
	free(all);
	return &tl->merged;
}

void
timeline_release(struct timeline *tl)
{
	if (tl->merged_built)
		chart_release(&tl->merged);
	for (uint32_t l = 0; l < tl->nr_lanes; l++)
		chart_release(&tl->lanes[l]);
	free(tl->lanes);
	memset(tl, 0, sizeof(*tl));
}

size_t
timeline_memory(const struct timeline *tl)
{
	size_t sum = 0;

	for (uint32_t l = 0; l < tl->nr_lanes; l++)
		sum += chart_memory(&tl->lanes[l]);
	if (tl->merged_built)
		sum += chart_memory(&tl->merged);
	return sum;
}

/* ------------------------------------------------------------ queries */

uint32_t
chart_first_after(const struct chart *c, uint32_t depth, uint64_t x)
{
	uint32_t lo, hi;

	if (depth >= c->nr_rows)
		return c->nr_boxes;
	lo = c->row_start[depth];
	hi = c->row_start[depth + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (chart_x1(c, mid) > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

uint32_t
chart_find(const struct chart *c, uint32_t depth, uint64_t x)
{
	uint32_t i;

	if (depth >= c->nr_rows)
		return CHART_NONE;
	i = chart_first_after(c, depth, x);
	if (i < c->row_start[depth + 1] && chart_x0(c, i) <= x)
		return i;
	return CHART_NONE;
}

uint32_t
chart_parent(const struct chart *c, uint32_t i)
{
	uint32_t d = chart_depth(c, i), lo, hi;

	if (!d)
		return CHART_NONE;
	lo = c->row_start[d - 1];
	hi = c->row_start[d];
	/* The first box of the row above that ends after i's first sample. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->end[mid] > c->first[i])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < c->row_start[d] ? lo : CHART_NONE;
}

void
chart_parents(const struct chart *c, uint32_t *parent)
{
	for (uint32_t d = 0; d < c->nr_rows; d++) {
		uint32_t j = d ? c->row_start[d - 1] : 0;

		for (uint32_t i = c->row_start[d]; i < c->row_start[d + 1]; i++) {
			if (!d) {
				parent[i] = CHART_NONE;
				continue;
			}
			while (j + 1 < c->row_start[d] && c->end[j] <= c->first[i])
				j++;
			parent[i] = j;
		}
	}
}

thread_id
chart_box_thread(const struct chart *c, uint32_t i)
{
	return c->p->thread[c->sample[c->first[i]]];
}

uint32_t
chart_step(const struct chart *c, uint32_t i, int dir)
{
	uint32_t d = chart_depth(c, i);

	if (dir < 0)
		return i > c->row_start[d] ? i - 1 : CHART_NONE;
	return i + 1 < c->row_start[d + 1] ? i + 1 : CHART_NONE;
}

void
chart_box_span(const struct chart *c, uint32_t i, struct chart_span *out)
{
	double total = c->total ? (double)c->total : 1.0;

	out->x0 = chart_x0(c, i);
	out->x1 = chart_x1(c, i);
	out->t0 = out->t1 = 0;
	if (c->has_time) {
		out->t0 = (int64_t)((uint64_t)c->axis.origin + out->x0);
		out->t1 = (int64_t)((uint64_t)c->axis.origin + out->x1);
	}
	out->pct0 = 100.0 * (double)out->x0 / total;
	out->pct1 = 100.0 * (double)out->x1 / total;
	out->pct = 100.0 * (double)(out->x1 - out->x0) / total;
}

uint64_t
chart_covered(const struct chart *c, uint64_t x)
{
	uint32_t lo = 0, hi = c->nr_samples, j, b;
	uint64_t sum, e;

	/* The number of positions that start before x. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (chart_pos_x0(c, mid) < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	j = lo - 1;
	b = j / BUSY_STEP;
	sum = c->busy[b];
	for (uint32_t k = b * BUSY_STEP; k < j; k++)
		sum += chart_pos_x1(c, k) - chart_pos_x0(c, k);
	e = chart_pos_x1(c, j);
	return sum + (e < x ? e : x) - chart_pos_x0(c, j);
}

void
chart_activity(const struct chart *c, uint64_t x0, uint64_t x1, uint32_t cols, float *out)
{
	uint64_t a = x0, cov_a = chart_covered(c, x0);

	for (uint32_t col = 0; col < cols; col++) {
		uint64_t b = x1 > x0 ? x0 + mul_div(x1 - x0, col + 1, cols) : x0;
		uint64_t cov_b = chart_covered(c, b);

		if (b > a)
			out[col] = (float)((double)(cov_b - cov_a) / (double)(b - a));
		else
			out[col] = (float)(chart_covered(c, a + 1) - cov_a);
		a = b;
		cov_a = cov_b;
	}
}

/* ------------------------------------------------------------ checking */

static int
check_box(const struct chart *c, uint32_t d, uint32_t i, const uint32_t *parent,
	  struct tf_error *err)
{
	const struct profile_set *ps = c->ps;
	stack_id s = c->stack[i];
	uint32_t pa;

	if (s == STACK_ROOT || s >= ps->nr_stacks || ps->stacks[s].depth != d + 1)
		return tf_error_set(err, "box %u: stack %u is not of depth %u", i, s, d + 1);
	if (c->first[i] >= c->end[i] || c->end[i] > c->nr_samples)
		return tf_error_set(err, "box %u: positions [%u, %u) of %u", i, c->first[i],
				    c->end[i], c->nr_samples);
	if (chart_x0(c, i) >= chart_x1(c, i) || chart_x1(c, i) > c->total)
		return tf_error_set(err, "box %u: x [%llu, %llu) in a total of %llu", i,
				    (unsigned long long)chart_x0(c, i),
				    (unsigned long long)chart_x1(c, i),
				    (unsigned long long)c->total);
	for (uint32_t k = c->first[i] + 1; k < c->end[i]; k++)
		if (chart_gap(c, k))
			return tf_error_set(err, "box %u spans a gap at position %u", i, k);
	if (i > c->row_start[d]) {
		if (c->end[i - 1] > c->first[i] || chart_x1(c, i - 1) > chart_x0(c, i))
			return tf_error_set(err, "box %u overlaps or precedes box %u", i, i - 1);
		if (c->end[i - 1] == c->first[i] && c->stack[i - 1] == s &&
		    !chart_gap(c, c->first[i]))
			return tf_error_set(err, "boxes %u and %u: same stack, not merged", i - 1,
					    i);
	}
	pa = parent[i];
	if (!d)
		return pa == CHART_NONE ? 0 : tf_error_set(err, "box %u: a parent at depth 0", i);
	if (pa != chart_parent(c, i))
		return tf_error_set(err, "box %u: parents %u and %u", i, pa, chart_parent(c, i));
	if (pa < c->row_start[d - 1] || pa >= c->row_start[d])
		return tf_error_set(err, "box %u: parent %u is not one row up", i, pa);
	if (c->first[pa] > c->first[i] || c->end[pa] < c->end[i])
		return tf_error_set(err, "box %u is not inside its parent %u", i, pa);
	if (ps->stacks[s].parent != c->stack[pa])
		return tf_error_set(err, "box %u: parent box %u is not its caller", i, pa);
	return 0;
}

int
chart_check(const struct chart *c, struct tf_error *err)
{
	uint32_t *parent;
	int ret = 0;

	for (uint32_t k = 0; k < c->nr_samples; k++) {
		if (c->sample[k] >= c->p->nr_samples || !c->p->weight[c->sample[k]])
			return tf_error_set(err, "position %u: no sample", k);
		if (c->thread != THREAD_NONE && c->p->thread[c->sample[k]] != c->thread)
			return tf_error_set(err, "position %u: another thread's sample", k);
		if (k && chart_pos_x0(c, k) <= chart_pos_x0(c, k - 1) && c->has_time)
			return tf_error_set(err, "position %u: not after position %u", k, k - 1);
	}
	if (!c->row_start)
		return c->nr_boxes || c->nr_rows ? tf_error_set(err, "boxes but no rows") : 0;
	if (c->row_start[0] != 0 || c->row_start[c->nr_rows] != c->nr_boxes)
		return tf_error_set(err, "rows cover [%u, %u) of %u boxes", c->row_start[0],
				    c->row_start[c->nr_rows], c->nr_boxes);
	parent = xmalloc(sizeof(*parent) * ((size_t)c->nr_boxes + 1));
	chart_parents(c, parent);
	for (uint32_t d = 0; d < c->nr_rows && !ret; d++) {
		if (c->row_start[d] >= c->row_start[d + 1])
			ret = tf_error_set(err, "row %u is empty or reversed", d);
		for (uint32_t i = c->row_start[d]; i < c->row_start[d + 1] && !ret; i++)
			ret = check_box(c, d, i, parent, err);
	}
	free(parent);
	return ret;
}

/* ------------------------------------------------------------ the ruler */

struct unit {
	uint64_t size;
	const char *name, *ascii;
};

static const struct unit time_units[] = {
	{ 1000000000, " s", " s" },
	{ 1000000, " ms", " ms" },
	{ 1000, " \xc2\xb5s", " us" },
	{ 1, " ns", " ns" },
};

static const struct unit count_units[] = {
	{ 1000000000000000000ULL, "E", "E" },
	{ 1000000000000000ULL, "P", "P" },
	{ 1000000000000ULL, "T", "T" },
	{ 1000000000, "G", "G" },
	{ 1000000, "M", "M" },
	{ 1000, "k", "k" },
	{ 1, "", "" },
};

void
chart_format_x(uint64_t x, bool time, bool ascii, struct strbuf *out)
{
	const struct unit *u = time ? time_units : count_units;

	if (!x) {
		strbuf_addch(out, '0');
		return;
	}
	while (u->size > x)
		u++;
	strbuf_addf(out, "%llu", (unsigned long long)(x / u->size));
	if (x % u->size) {
		uint64_t frac = x % u->size, scale = u->size / 10;

		strbuf_addch(out, '.');
		/* Exact digits, trailing zeros dropped. */
		while (frac) {
			strbuf_addch(out, (char)('0' + frac / scale));
			frac %= scale;
			scale /= 10;
		}
	}
	strbuf_addstr(out, ascii ? u->ascii : u->name);
}

/* Cells a label takes: its bytes less the continuation bytes of UTF-8. */
static uint32_t
label_width(const char *s)
{
	uint32_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Fill out with the ticks of step; returns how many, or SIZE_MAX if they touch. */
static size_t
ruler_try(uint64_t x0, uint64_t x1, uint32_t width, uint64_t step, bool time, bool ascii,
	  struct ruler_tick *out, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t x = x0 % step ? x0 + (step - x0 % step) : x0;
	size_t n = 0;
	bool touch = false;

	if (x < x0) /* wrapped */
		return 0;
	for (; x < x1 && n < max; n++) {
		struct ruler_tick *t = &out[n];

		t->x = x;
		t->col = (uint32_t)mul_div(x - x0, width, x1 - x0);
		if ((unsigned __int128)(x - x0) * width % (x1 - x0) * 2 >= x1 - x0)
			t->col++; /* round halves up, as the layout does */
		strbuf_reset(&sb);
		chart_format_x(x, time, ascii, &sb);
		snprintf(t->label, sizeof(t->label), "%s", sb.buf);
		t->width = label_width(t->label);
		if (n && out[n - 1].col + out[n - 1].width + 2 > t->col) {
			touch = true;
			break;
		}
		if (x > UINT64_MAX - step)
			x = x1;
		else
			x += step;
	}
	strbuf_release(&sb);
	if (touch)
		return SIZE_MAX;
	/* The last label may not run past the width. */
	while (n && out[n - 1].col + out[n - 1].width > width)
		n--;
	return n;
}

size_t
chart_ruler(uint64_t x0, uint64_t x1, uint32_t width, bool time, bool ascii,
	    struct ruler_tick *out, size_t max)
{
	static const uint64_t tenths[] = { 10, 20, 25, 50 };

	if (x1 <= x0 || !width || !max)
		return 0;
	for (uint64_t pow = 1;; pow *= 10) {
		for (size_t m = 0; m < sizeof(tenths) / sizeof(tenths[0]); m++) {
			uint64_t step;
			size_t n;

			if (pow < 10 && tenths[m] % 10)
				continue; /* no step is 2.5 of the smallest unit */
			step = pow < 10 ? tenths[m] / 10 : pow / 10 * tenths[m];
			n = ruler_try(x0, x1, width, step, time, ascii, out, max);
			/* Too many ticks for out counts as touching. */
			if (n != SIZE_MAX && (n < max || step >= x1 - x0))
				return n;
			if (step >= x1 - x0)
				return 0;
		}
		if (pow > UINT64_MAX / 100)
			return 0;
	}
}
