#include "config.h"

#include "tflame/sandwich.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/diff.h"
#include "tflame/error.h"
#include "tflame/radix.h"
#include "tflame/search.h"
#include "tflame/xalloc.h"

struct caller_weight {
	stack_id node; /* in the callers view: the reversed path's last frame */
	uint64_t weight;
};

/* A node of the lens's tree and where it lands in the callees view. */
struct callee_todo {
	stack_id node, view;
};

/* Make room for weights of view stacks [0, n), zeroing the new ones. */
static void
grow_weights(uint64_t **w, size_t *alloc, size_t n)
{
	size_t old = *alloc;

	if (n <= old)
		return;
	*alloc = old ? old : 1024;
	while (*alloc < n)
		*alloc *= 2;
	*w = xreallocarray(*w, *alloc, sizeof(**w));
	memset(*w + old, 0, sizeof(**w) * (*alloc - old));
}

/*
 * Following the outermost occurrence, without looking at a sample twice.
 *
 * A stack s of the lens's tree stands for the samples whose call path
 * begins with s; t->total[s] is their weight. Call s an outermost F when
 * its frame is F's and F is nowhere on the path above it (ft's outermost
 * marks, which depend on the stacks alone). Every sample that contains F
 * has exactly one outermost F on its path, however often F recurses on
 * it, directly or not, so the outermost Fs split F's samples into disjoint
 * subtrees whose totals add up to F's total.
 *
 * For each outermost F, o:
 *  - callers: the path from o's parent up to the root, read upwards, is
 *    interned under the top node (F) of the callers view, and o's whole
 *    total sits at the end of that path;
 *  - callees: o's subtree is copied under the top node of the callees
 *    view, frame by frame, each node's self weight going to its copy. A
 *    later F inside the subtree is just another frame there.
 * Interning merges what is the same: two outermost Fs with the same
 * callers share a path, and equal call paths below them share nodes. Each
 * sample's weight lands in each tree once, at one node.
 *
 * Only stacks with weight are visited below o (the tree's children lists
 * hold no others), so the cost is one pass over the stacks to find the
 * outermost Fs plus the size of the two trees. Walking up costs the depth
 * of each o's caller (siblings that share a caller walk once): that is
 * the size of the callers tree that walk builds, whose reversed paths
 * rarely share nodes.
 */
void
sandwich_build(struct sandwich *sw, const struct calltree *t, const struct func_table *ft,
	       func_id func)
{
	const struct profile_set *ps = t->ps;
	uint32_t n = t->nr_nodes;
	const uint64_t *outermost = ft->outermost;
	struct func_table marked = { 0 };
	stack_id callers_top = STACK_ROOT, callees_top = STACK_ROOT;
	stack_id last_parent = STACK_ROOT, last_v = STACK_ROOT;
	struct caller_weight *cws = NULL;
	size_t nr_cws = 0, alloc_cws = 0, alloc_cw = 0;
	struct callee_todo *todo = NULL;
	size_t nr_todo = 0, alloc_todo = 0;
	uint64_t *cw = NULL;
	uint8_t *under;
	stack_id *outer = NULL;
	size_t nr_outer = 0, alloc_outer = 0;
	uint32_t nr_under = 0;

	if (func >= ft->nr_funcs)
		BUG("function %u of %u", func, ft->nr_funcs);
	memset(sw, 0, sizeof(*sw));
	sw->ps = ps;
	sw->ft = ft;
	sw->func = func;
	sw->top = FRAME_NONE;
	for (frame_id f = 0; f < ps->nr_frames; f++) {
		if (ft->frame_func[f] == func) {
			sw->top = f;
			break;
		}
	}
	profile_set_view_init(&sw->callers_ps, ps);
	profile_set_view_init(&sw->callees_ps, ps);
	if (sw->top != FRAME_NONE) {
		callers_top = profile_set_stack(&sw->callers_ps, STACK_ROOT, sw->top);
		callees_top = profile_set_stack(&sw->callees_ps, STACK_ROOT, sw->top);
	}
	if (!outermost || ft->nr_marked != ps->nr_stacks) {
		marked = *ft;
		marked.outermost = NULL;
		func_table_mark_outermost(&marked, ps);
		outermost = marked.outermost;
	}

	/*
	 * First find the outermost Fs, and count the weighted stacks below
	 * them: at most that many callees, so their table never rehashes.
	 */
	under = xcalloc((size_t)n + 1, 1);
	for (stack_id s = 1; s < n; s++) {
		const struct stack_node *sn = &ps->stacks[s];

		if (!t->total[s])
			continue;
		under[s] = under[sn->parent];
		if (ft->frame_func[sn->frame] == func) {
			sw->self += t->self[s];
			if (outermost[s >> 6] >> (s & 63) & 1) {
				ALLOC_GROW(outer, nr_outer, alloc_outer);
				outer[nr_outer++] = s;
				under[s] = 1;
			}
		}
		nr_under += under[s];
	}
	free(under);
	if (outermost != ft->outermost)
		free(marked.outermost);
	profile_set_reserve_stacks(&sw->callees_ps, nr_under);
	grow_weights(&cw, &alloc_cw, (size_t)nr_under + 2);

	for (size_t i = 0; i < nr_outer; i++) {
		stack_id o = outer[i], p = ps->stacks[o].parent;

		sw->total += t->total[o];

		if (p != last_parent || last_v == STACK_ROOT) {
			last_v = callers_top;
			for (stack_id a = p; a != STACK_ROOT; a = ps->stacks[a].parent)
				last_v = profile_set_stack(&sw->callers_ps, last_v,
							   ps->stacks[a].frame);
			last_parent = p;
		}
		ALLOC_GROW(cws, nr_cws, alloc_cws);
		cws[nr_cws].node = last_v;
		cws[nr_cws].weight = t->total[o];
		nr_cws++;

		ALLOC_GROW(todo, nr_todo, alloc_todo);
		todo[nr_todo].node = o;
		todo[nr_todo].view = callees_top;
		nr_todo++;
		while (nr_todo) {
			struct callee_todo c = todo[--nr_todo];
			uint32_t nk;
			const stack_id *k = calltree_kids(t, c.node, &nk);

			grow_weights(&cw, &alloc_cw, sw->callees_ps.nr_stacks);
			cw[c.view] += t->self[c.node];
			ALLOC_GROW_BY(todo, nr_todo, nk, alloc_todo);
			for (uint32_t j = 0; j < nk; j++) {
				todo[nr_todo].node = k[j];
				todo[nr_todo].view = profile_set_stack(&sw->callees_ps, c.view,
								       ps->stacks[k[j]].frame);
				nr_todo++;
			}
		}
	}
	free(outer);

	grow_weights(&cw, &alloc_cw, sw->callees_ps.nr_stacks);
	calltree_build(&sw->callees, &sw->callees_ps, cw);
	free(cw);

	cw = xcalloc(sw->callers_ps.nr_stacks, sizeof(*cw));
	for (size_t i = 0; i < nr_cws; i++)
		cw[cws[i].node] += cws[i].weight;
	calltree_build(&sw->callers, &sw->callers_ps, cw);
	free(cw);

	free(cws);
	free(todo);
}

void
sandwich_release(struct sandwich *sw)
{
	calltree_release(&sw->callers);
	calltree_release(&sw->callees);
	profile_set_view_release(&sw->callers_ps);
	profile_set_view_release(&sw->callees_ps);
	memset(sw, 0, sizeof(*sw));
}

/* One tree of the sandwich: its view, its checks, its weight and its top. */
static int
check_tree(const struct sandwich *sw, const struct calltree *t, const struct profile_set *view,
	   const char *what, struct tf_error *err)
{
	uint32_t nk;
	const stack_id *k;

	if (t->ps != view)
		return tf_error_set(err, "%s: the tree is not over its view", what);
	if (view->frames != sw->ps->frames || view->nr_frames != sw->ps->nr_frames ||
	    view->strings.strs != sw->ps->strings.strs)
		return tf_error_set(err, "%s: the view does not share the set's frames", what);
	if (profile_set_check(view, err) || calltree_check(t, err))
		return -1;
	if (t->total[STACK_ROOT] != sw->total)
		return tf_error_set(err, "%s weigh %llu, the function %llu", what,
				    (unsigned long long)t->total[STACK_ROOT],
				    (unsigned long long)sw->total);
	if (t->self[STACK_ROOT])
		return tf_error_set(err, "%s: weight on the root", what);
	k = calltree_kids(t, STACK_ROOT, &nk);
	if (nk != (sw->total ? 1u : 0u))
		return tf_error_set(err, "%s: %u nodes on row 0", what, nk);
	if (nk && view->stacks[k[0]].frame != sw->top)
		return tf_error_set(err, "%s: row 0 is frame %u, not %u", what,
				    view->stacks[k[0]].frame, sw->top);
	return 0;
}

int
sandwich_check(const struct sandwich *sw, struct tf_error *err)
{
	const struct calltree *t = &sw->callers;
	const struct profile_set *v = &sw->callers_ps;
	uint32_t nk;
	const stack_id *k;

	if (!sw->ps || !sw->ft || sw->func >= sw->ft->nr_funcs)
		return tf_error_set(err, "a sandwich of no function");
	if (sw->top != FRAME_NONE &&
	    (sw->top >= sw->ps->nr_frames || sw->ft->frame_func[sw->top] != sw->func))
		return tf_error_set(err, "top frame %u is not the function's", sw->top);
	if (sw->top == FRAME_NONE && sw->total)
		return tf_error_set(err, "weight for a function with no frame");
	if (check_tree(sw, &sw->callers, &sw->callers_ps, "callers", err) ||
	    check_tree(sw, &sw->callees, &sw->callees_ps, "callees", err))
		return -1;
	/* The path to the outermost F holds F once: at the top. */
	for (stack_id s = 1; s < v->nr_stacks; s++)
		if (t->total[s] && v->stacks[s].depth > 1 &&
		    sw->ft->frame_func[v->stacks[s].frame] == sw->func)
			return tf_error_set(err, "callers: node %u is the function again", s);
	k = calltree_kids(&sw->callees, STACK_ROOT, &nk);
	if (nk && sw->callees.self[k[0]] > sw->self)
		return tf_error_set(err, "callees: top self %llu, the function's self %llu",
				    (unsigned long long)sw->callees.self[k[0]],
				    (unsigned long long)sw->self);
	if (sw->self > sw->total)
		return tf_error_set(err, "self %llu over total %llu",
				    (unsigned long long)sw->self, (unsigned long long)sw->total);
	return 0;
}

/* ------------------------------------------------------------ the table */

struct row_order {
	const struct profile_set *ps;
	const struct func_table *ft;
	const struct func_stats *st;
	const struct func_stats *base; /* or NULL */
	enum sandwich_sort by;
	bool reverse;
};

static int
cmp_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

/* The change of f's total (self) against the base. */
static int64_t
row_delta(const struct row_order *o, func_id f, bool self)
{
	uint64_t now = self ? o->st[f].self : o->st[f].total, was = 0;

	if (o->base)
		was = self ? o->base[f].self : o->base[f].total;
	return diff_delta(was, now);
}

static int
cmp_delta(const struct row_order *o, func_id a, func_id b, bool self)
{
	int64_t x = row_delta(o, a, self), y = row_delta(o, b, self);

	return x > y ? -1 : x < y;
}

/* < 0 when function a comes before function b. Never 0 for a != b. */
static int
row_cmp(const struct row_order *o, func_id a, func_id b)
{
	const struct func_stats *x = &o->st[a], *y = &o->st[b];
	int c = 0;

	switch (o->by) {
	case SANDWICH_BY_TOTAL:
		c = cmp_desc(x->total, y->total);
		if (!c)
			c = cmp_desc(x->self, y->self);
		break;
	case SANDWICH_BY_SELF:
		c = cmp_desc(x->self, y->self);
		if (!c)
			c = cmp_desc(x->total, y->total);
		break;
	case SANDWICH_BY_NAME:
		break;
	case SANDWICH_BY_DELTA_TOTAL:
	case SANDWICH_BY_DELTA_SELF: {
		bool self = o->by == SANDWICH_BY_DELTA_SELF;

		c = cmp_delta(o, a, b, self);
		if (!c)
			c = cmp_delta(o, a, b, !self);
		break;
	}
	}
	if (!c)
		c = func_cmp_names(o->ft, o->ps, a, b);
	return o->reverse ? -c : c;
}

static int
row_cmp_ctx(const void *ctx, func_id a, func_id b)
{
	return row_cmp(ctx, a, b);
}

static void
rows_sort(const struct row_order *o, func_id *a, uint32_t n)
{
	func_ids_sort(a, n, row_cmp_ctx, o);
}

/*
 * A row for every function with weight (that matches), on either side in
 * a comparison: a process frame is no function, and perf report's table
 * has no such row either.
 */
static bool
row_wanted(const struct func_table *ft, const struct func_stats *st,
	   const struct func_stats *base, const struct search *match, func_id f)
{
	return (st[f].total || (base && base[f].total)) && !ft->process[f] &&
	       (!match || search_func(match, f));
}

/*
 * A row with what it is sorted by at hand, read in function order:
 * looked up after the sort, in row order, the weights and ranks of the
 * runs of ties cost a cache miss each.
 */
struct row_key {
	uint64_t k;    /* the weight compared first, complemented; by name, the rank */
	uint64_t k2;   /* the weight compared second, complemented */
	uint32_t rank; /* func_table.name_rank, or 0 without ranks */
	func_id f;
};

/*
 * Sort keys by k ascending, stably, 11 bits a pass (radix.h): O(n) a pass
 * where merge sorting took O(n log n) comparisons through three arrays:
 * 30 ms for 200,000 functions, and the table is the next thing drawn
 * after a lens change.
 */
static void
keys_sort(struct row_key *a, struct row_key *tmp, uint32_t n)
{
	struct row_key *sorted = radix_sort(a, tmp, n, sizeof(*a), offsetof(struct row_key, k), 11);

	if (sorted != a)
		memcpy(a, sorted, sizeof(*a) * n);
}

/* Within a run of equal first keys: the second weight, then the name's rank. */
static bool
tie_before(const struct row_key *a, const struct row_key *b)
{
	return a->k2 != b->k2 ? a->k2 < b->k2 : a->rank < b->rank;
}

/* Insertion sort for short runs, a bottom-up merge sort for long ones. */
static void
ties_sort(struct row_key *a, struct row_key *tmp, uint32_t n)
{
	struct row_key *src = a, *dst = tmp, *t;

	if (n <= 16) {
		for (uint32_t i = 1; i < n; i++) {
			struct row_key v = a[i];
			uint32_t j = i;

			for (; j > 0 && tie_before(&v, &a[j - 1]); j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return;
	}
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				dst[k++] = tie_before(&src[j], &src[i]) ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, sizeof(*a) * n);
}

/*
 * Sort rows by weight: the radix sort on the first weight, then each run
 * of equal first weights by the rest of the order (the other weight,
 * then the name's rank if the functions are ranked, else comparing
 * names), then reversed if asked (the order is total, so its reverse is
 * the reversed order). By name with ranked functions: the radix sort on
 * the ranks.
 */
static void
rows_sort_fast(const struct row_order *o, struct sandwich_rows *r)
{
	const uint32_t *rank = o->ft->name_rank;
	func_id *a = r->rows;
	uint32_t n = r->nr;
	/* Fresh pages for megabytes of keys on every build cost more than the sort. */
	size_t want = sizeof(struct row_key) * ((size_t)n + 1) * 2;
	struct row_key *keys, *tmp;
	struct row_order fwd = *o;
	bool total = o->by == SANDWICH_BY_TOTAL;

	if (r->scratch_size < want) {
		free(r->scratch);
		r->scratch = xmalloc(want);
		r->scratch_size = want;
	}
	keys = r->scratch;
	tmp = keys + n + 1;
	fwd.reverse = false;
	for (uint32_t i = 0; i < n; i++) {
		const struct func_stats *st = &o->st[a[i]];

		keys[i].k = o->by == SANDWICH_BY_NAME ? rank[a[i]]
			    : ~(total ? st->total : st->self);
		keys[i].k2 = ~(total ? st->self : st->total);
		keys[i].rank = rank ? rank[a[i]] : 0;
		keys[i].f = a[i];
	}
	keys_sort(keys, tmp, n);
	for (uint32_t i = 0, j; i < n && o->by != SANDWICH_BY_NAME; i = j) {
		for (j = i + 1; j < n && keys[j].k == keys[i].k; j++)
			;
		if (j - i < 2 || !rank)
			continue;
		ties_sort(keys + i, tmp, j - i);
	}
	for (uint32_t i = 0; i < n; i++)
		a[i] = keys[o->reverse ? n - 1 - i : i].f;
	/* Without ranks, the runs compare names (fwd: reversing is done above). */
	for (uint32_t i = 0, j; i < n && !rank && o->by != SANDWICH_BY_NAME; i = j) {
		for (j = i + 1; j < n && keys[j].k == keys[i].k; j++)
			;
		if (j - i > 1)
			rows_sort(o->reverse ? o : &fwd, a + (o->reverse ? n - j : i), j - i);
	}
}

void
sandwich_rows_init(struct sandwich_rows *r)
{
	memset(r, 0, sizeof(*r));
}

void
sandwich_rows_build(struct sandwich_rows *r, const struct profile_set *ps,
		    const struct func_table *ft, const struct func_stats *st,
		    const struct func_stats *base, enum sandwich_sort by, bool reverse,
		    const struct search *match)
{
	struct row_order o = { ps, ft, st, base, by, reverse };

	r->nr = 0;
	r->by = by;
	r->reverse = reverse;
	r->filtered = match != NULL;
	for (func_id f = 0; f < ft->nr_funcs; f++) {
		if (!row_wanted(ft, st, base, match, f))
			continue;
		ALLOC_GROW(r->rows, r->nr, r->alloc);
		r->rows[r->nr++] = f;
	}
	/* The orders by change compare deltas of two tables: merge sorted. */
	if (by == SANDWICH_BY_TOTAL || by == SANDWICH_BY_SELF ||
	    (by == SANDWICH_BY_NAME && ft->name_rank))
		rows_sort_fast(&o, r);
	else
		rows_sort(&o, r->rows, r->nr);
}

void
sandwich_rows_release(struct sandwich_rows *r)
{
	free(r->rows);
	free(r->scratch);
	memset(r, 0, sizeof(*r));
}

uint32_t
sandwich_rows_find(const struct sandwich_rows *r, func_id func)
{
	for (uint32_t i = 0; i < r->nr; i++)
		if (r->rows[i] == func)
			return i;
	return UINT32_MAX;
}

int
sandwich_rows_check(const struct sandwich_rows *r, const struct profile_set *ps,
		    const struct func_table *ft, const struct func_stats *st,
		    const struct func_stats *base, const struct search *match,
		    struct tf_error *err)
{
	struct row_order o = { ps, ft, st, base, r->by, r->reverse };
	uint8_t *seen = xcalloc((size_t)ft->nr_funcs + 1, 1);
	uint32_t want = 0;
	int ret = 0;

	if (r->filtered != (match != NULL))
		ret = tf_error_set(err, "rows built %s a filter", r->filtered ? "with" : "without");
	for (func_id f = 0; f < ft->nr_funcs && !ret; f++)
		if (row_wanted(ft, st, base, match, f))
			want++;
	if (!ret && want != r->nr)
		ret = tf_error_set(err, "%u rows, %u functions to show", r->nr, want);
	for (uint32_t i = 0; i < r->nr && !ret; i++) {
		func_id f = r->rows[i];

		if (f >= ft->nr_funcs || seen[f] || !row_wanted(ft, st, base, match, f))
			ret = tf_error_set(err, "row %u: function %u %s", i, f,
					   f >= ft->nr_funcs ? "out of range"
					   : seen[f]	     ? "twice"
							     : "not to be shown");
		else if (i && row_cmp(&o, r->rows[i - 1], f) >= 0)
			ret = tf_error_set(err, "rows %u and %u out of order", i - 1, i);
		else
			seen[f] = 1;
	}
	free(seen);
	return ret;
}
