#include "config.h"

#include "tflame/model.h"

#include <stdlib.h>
#include <string.h>

#include "tflame/diff.h"
#include "tflame/error.h"
#include "tflame/xalloc.h"

/*
 * The base's side of a comparison (model.h, "comparing"), and the two
 * answers that join both sides: the Sandwich rows, which carry the base's
 * figures, and model_check(). Built on model.c, which calls nothing here
 * (tools/check-includes).
 *
 * The base's samples are in the model's own set, on the set's stacks
 * (diff_join()), so the lens maps them as it maps the shown profile's, and
 * every answer here is on the shown side's view stacks, functions and
 * trees. The base's samples are read once per selection (threads, time
 * range, profile, counting); everything after that is O(stacks) per lens
 * change.
 */

/* The profile shown, as its set holds it (not counted). */
static const struct profile *
shown(const struct model *m)
{
	return m->ps->profiles[m->lens.profile];
}

void
model_set_diff_normalize(struct model *m, bool on)
{
	if (m->diff.normalize == on)
		return;
	m->diff.normalize = on;
	m->diff.dgen++;
}

bool
model_diff_normalized(const struct model *m)
{
	return m->diff.normalize;
}

static int
cmp_str_id(const void *a, const void *b)
{
	str_id x = *(const str_id *)a, y = *(const str_id *)b;

	return x < y ? -1 : x > y;
}

/*
 * The thread mask the base is read with: every thread whose comm is that
 * of a kept thread of the shown profile (one with samples, as the picker
 * lists them), or NULL when nothing is filtered. The caller frees it.
 * A thread's comm is its last (a tid that ran sh, then exec'd python3, is
 * python3, as perf report --sort pid names it), and it is kept whole.
 */
static bool *
base_threads(struct model *m)
{
	const struct profile_set *ps = m->ps;
	const struct thread_table *tt;
	str_id *comms;
	size_t nr = 0;
	bool *out;

	if (!m->lens.threads)
		return NULL;
	tt = model_thread_weights(m);
	comms = xmalloc(sizeof(*comms) * ((size_t)tt->nr_threads + 1));
	for (uint32_t i = 0; i < tt->nr_threads; i++)
		if (m->lens.threads[tt->threads[i].thread])
			comms[nr++] = profile_thread_comm(ps, tt->threads[i].thread);
	qsort(comms, nr, sizeof(*comms), cmp_str_id);
	out = xcalloc((size_t)ps->nr_threads + 1, sizeof(*out));
	for (thread_id t = 0; t < ps->nr_threads; t++) {
		str_id comm = profile_thread_comm(ps, t);

		out[t] = nr && bsearch(&comm, comms, nr, sizeof(*comms), cmp_str_id);
	}
	free(comms);
	return out;
}

/* t moved from one clock to another: t - from + to, saturated. */
static int64_t
shift_time(int64_t t, int64_t from, int64_t to)
{
	__extension__ __int128 x = (__int128)t - from + to;

	return x > INT64_MAX ? INT64_MAX : x < INT64_MIN ? INT64_MIN : (int64_t)x;
}

/*
 * The lens's time range on b's clock: the same offsets from b's first
 * sample as from the shown profile's. false when there is no range, or
 * one of the two has no times (b then keeps every sample).
 */
static bool
base_range(const struct model *m, const struct profile *b, int64_t *t0, int64_t *t1)
{
	const struct profile *p = shown(m);

	if (!m->lens.timed || !p->has_time || !b->has_time)
		return false;
	*t0 = shift_time(m->lens.t0, p->time_min, b->time_min);
	*t1 = shift_time(m->lens.t1, p->time_min, b->time_min);
	return true;
}

/* Per set stack: the base's samples the selection keeps, in the shown profile's units. */
static const uint64_t *
base_set_weights(struct model *m, const struct profile *b)
{
	struct model_diff *d = &m->diff;
	const struct profile *p = shown(m);
	bool count = m->lens.count_samples, timed;
	bool *mask;
	int64_t t0 = 0, t1 = 0;
	uint64_t total = 0;

	if (d->set_gen == m->sel_gen)
		return d->set_w;
	/* The set's stacks never change under a model but by model_set_changed(). */
	if (!d->set_w)
		d->set_w = xmalloc(sizeof(*d->set_w) * ((size_t)m->ps->nr_stacks + 1));
	memset(d->set_w, 0, sizeof(*d->set_w) * m->ps->nr_stacks);
	mask = base_threads(m);
	timed = base_range(m, b, &t0, &t1);
	for (size_t i = 0; i < b->nr_samples; i++) {
		uint64_t w;

		if ((mask && !mask[b->thread[i]]) ||
		    (timed && (b->time[i] < t0 || b->time[i] >= t1)))
			continue;
		w = count ? 1 : diff_same_decimals(b->weight[i], b, p);
		/* A wide shown profile's views are scaled (model_profile()): the base's too. */
		if (!count)
			w = profile_shift_weight(w, m->wide.weight_shift);
		d->set_w[b->stack[i]] += w;
		total += w;
	}
	free(mask);
	d->set_total = total;
	d->set_gen = m->sel_gen;
	return d->set_w;
}

const uint64_t *
model_base_stack_weights(struct model *m, uint64_t *total)
{
	struct model_diff *d = &m->diff;
	const struct profile *b = model_diff_base(m);
	const struct profile_set *view;
	const uint64_t *set_w;
	uint64_t raw, sum;

	if (!b)
		return NULL;
	if (d->w_gen == m->generation && d->w_dgen == d->dgen)
		goto done;
	set_w = base_set_weights(m, b);
	view = model_view(m);
	if (d->nr_view_w < view->nr_stacks) {
		free(d->view_w);
		d->view_w = xmalloc(sizeof(*d->view_w) * view->nr_stacks);
		d->nr_view_w = view->nr_stacks;
	}
	if (lens_map(&m->lens)) {
		raw = lens_fold_weights(&m->lens, m->ps, set_w, d->view_w);
	} else {
		memcpy(d->view_w, set_w, sizeof(*d->view_w) * view->nr_stacks);
		raw = d->set_total;
	}
	sum = raw;
	/* As difffolded.pl -n: each line (here each stack) on its own, rounded down. */
	if (d->normalize) {
		uint64_t to = model_total(m);

		sum = 0;
		for (stack_id s = 0; s < view->nr_stacks; s++) {
			d->view_w[s] = diff_scale(d->view_w[s], raw, to);
			sum += d->view_w[s];
		}
	}
	d->raw_total = raw;
	d->total = sum;
	d->w_gen = m->generation;
	d->w_dgen = d->dgen;
done:
	if (total)
		*total = d->total;
	return d->view_w;
}

/* Subtree sums of w over set's stacks into out: children have greater ids. */
static void
subtree_sums(const struct profile_set *set, const uint64_t *w, uint64_t *out)
{
	memcpy(out, w, sizeof(*out) * set->nr_stacks);
	for (stack_id s = set->nr_stacks; s-- > 1;)
		out[set->stacks[s].parent] += out[s];
}

const uint64_t *
model_base_tree_totals(struct model *m)
{
	struct model_diff *d = &m->diff;
	const struct profile_set *view;
	const uint64_t *w = model_base_stack_weights(m, NULL);

	if (!w)
		return NULL;
	if (d->tree_gen == m->generation && d->tree_dgen == d->dgen)
		return d->tree_tot;
	view = model_view(m);
	d->tree_tot = xreallocarray(d->tree_tot, (size_t)view->nr_stacks + 1, sizeof(*d->tree_tot));
	subtree_sums(view, w, d->tree_tot);
	d->tree_gen = m->generation;
	d->tree_dgen = d->dgen;
	return d->tree_tot;
}

const struct func_stats *
model_base_func_stats(struct model *m)
{
	struct model_diff *d = &m->diff;
	const struct func_table *ft;
	const uint64_t *w, *sub;

	if (!(sub = model_base_tree_totals(m)))
		return NULL;
	if (d->fstats_gen == m->generation && d->fstats_dgen == d->dgen)
		return d->fstats;
	ft = model_funcs(m);
	w = model_base_stack_weights(m, NULL);
	/* A collapse-module may have added functions: sized anew. */
	d->fstats = xreallocarray(d->fstats, (size_t)ft->nr_funcs + 1, sizeof(*d->fstats));
	func_stats_compute_sums(ft, model_view(m), w, sub, d->fstats);
	d->fstats_gen = m->generation;
	d->fstats_dgen = d->dgen;
	return d->fstats;
}

const struct sandwich_rows *
model_sandwich_rows(struct model *m, enum sandwich_sort by, bool reverse, bool filter)
{
	const struct search *s = filter ? model_search(m) : NULL;
	const struct func_stats *base = model_base_func_stats(m);
	struct sandwich_rows *r = &m->rows;

	/* New weights bring the rows of the order asked last (model.c: rows_follow()). */
	model_func_stats(m);

	if (m->rows_gen == m->generation && r->by == by && r->reverse == reverse &&
	    r->filtered == (s != NULL) && (!s || m->rows_sgen == m->search_gen) &&
	    m->rows_dgen == m->diff.dgen)
		return r;
	m->rows_asked = true;
	model_rows_build(m, by, reverse, s, base);
	return r;
}

/* The base's own Left Heavy tree, for its sandwich and inverted tree. */
static const struct calltree *
base_tree(struct model *m)
{
	struct model_diff *d = &m->diff;
	const uint64_t *w = model_base_stack_weights(m, NULL);

	if (d->ctree_gen == m->generation && d->ctree_dgen == d->dgen)
		return &d->tree;
	calltree_rebuild(&d->tree, model_view(m), w);
	d->ctree_gen = m->generation;
	d->ctree_dgen = d->dgen;
	return &d->tree;
}

/*
 * For each node of t, the subtree weight of base's node of the same path
 * (0 where base has none) into out (t->nr_nodes entries). Their sets are
 * views of one set, sharing frames: a path is the same when it is the
 * same frame under the matched parent. Base's nodes come parents first,
 * so one pass matches them, each a lookup among t's set's children.
 */
static void
match_totals(const struct calltree *t, const struct calltree *base, uint64_t *out)
{
	const struct profile_set *ts = t->ps, *bs = base->ps;
	uint32_t n = t->nr_nodes, nb = base->nr_nodes;
	stack_id *map = xmalloc(sizeof(*map) * ((size_t)nb + 1));

	memset(out, 0, sizeof(*out) * n);
	if (n && nb)
		out[STACK_ROOT] = base->total[STACK_ROOT];
	map[STACK_ROOT] = STACK_ROOT;
	for (stack_id s = 1; s < nb; s++) {
		stack_id parent = map[bs->stacks[s].parent];

		map[s] = STACK_NONE;
		if (!base->total[s] || parent == STACK_NONE)
			continue;
		map[s] = profile_set_find_stack(ts, parent, bs->stacks[s].frame);
		/* A set may hold stacks past its tree's nodes: not the tree's. */
		if (map[s] != STACK_NONE && map[s] < n)
			out[map[s]] = base->total[s];
		else
			map[s] = STACK_NONE;
	}
	free(map);
}

const uint64_t *
model_base_sandwich(struct model *m, func_id func, bool callees)
{
	struct model_diff *d = &m->diff;
	const struct sandwich *sw;
	struct sandwich bsw;

	if (!model_diff_base(m))
		return NULL;
	sw = model_sandwich(m, func);
	if (d->sw_build == m->sandwich_builds && d->sw_gen == m->generation &&
	    d->sw_dgen == d->dgen)
		return d->sw_tot[callees];
	sandwich_build(&bsw, base_tree(m), model_funcs(m), func);
	for (int i = 0; i < 2; i++) {
		const struct calltree *t = i ? &sw->callees : &sw->callers;

		d->sw_tot[i] = xreallocarray(d->sw_tot[i], (size_t)t->nr_nodes + 1,
					     sizeof(*d->sw_tot[i]));
		match_totals(t, i ? &bsw.callees : &bsw.callers, d->sw_tot[i]);
	}
	sandwich_release(&bsw);
	d->sw_build = m->sandwich_builds;
	d->sw_gen = m->generation;
	d->sw_dgen = d->dgen;
	return d->sw_tot[callees];
}

const uint64_t *
model_base_inverted_totals(struct model *m)
{
	struct model_diff *d = &m->diff;
	const struct inverted *inv;
	struct inverted binv;

	if (!model_diff_base(m))
		return NULL;
	inv = model_inverted(m);
	if (d->inv_build == m->inv_builds && d->inv_gen == m->generation &&
	    d->inv_dgen == d->dgen)
		return d->inv_tot;
	inverted_build(&binv, base_tree(m));
	d->inv_tot = xreallocarray(d->inv_tot, (size_t)inv->tree.nr_nodes + 1, sizeof(*d->inv_tot));
	match_totals(&inv->tree, &binv.tree, d->inv_tot);
	inverted_release(&binv);
	d->inv_build = m->inv_builds;
	d->inv_gen = m->generation;
	d->inv_dgen = d->dgen;
	return d->inv_tot;
}

static bool
same_mask(const bool *a, const bool *b, uint32_t n)
{
	if (!a || !b)
		return a == b;
	return !memcmp(a, b, sizeof(*a) * n);
}

static bool *
copy_mask(const bool *mask, uint32_t n)
{
	return mask ? xmemdup(mask, sizeof(*mask) * n) : NULL;
}

bool
model_swap_diff(struct model *m)
{
	struct model_diff *d = &m->diff;
	uint32_t n = m->ps->nr_threads;
	int other = model_diff_base(m) ? m->diff.other : -1;
	size_t from = m->lens.profile;
	bool *mask, timed;
	int64_t t0 = 0, t1 = 0;

	if (other < 0)
		return false;
	mask = base_threads(m);
	/*
	 * Straight back, the filter untouched since: the mask as it was, not
	 * the one by comm, which may keep more threads of the same name.
	 */
	if (d->swapped && d->swap_from == (size_t)other &&
	    same_mask(m->lens.threads, d->swap_set, n)) {
		free(mask);
		mask = copy_mask(d->swap_mask, n);
	}
	timed = base_range(m, m->ps->profiles[other], &t0, &t1);
	free(d->swap_mask);
	free(d->swap_set);
	d->swap_mask = copy_mask(m->lens.threads, n);
	d->swapped = true;
	d->swap_from = from;
	model_set_profile(m, (size_t)other);
	model_set_threads(m, mask);
	d->swap_set = copy_mask(m->lens.threads, n);
	if (m->lens.timed)
		model_set_time(m, timed, t0, t1);
	free(mask);
	return true;
}

/* Each node of t weighs (in tot) at least its children together. */
static int
check_nested(const struct profile_set *set, uint32_t n, const uint64_t *tot, const char *what,
	     struct tf_error *err)
{
	uint64_t *kids = xcalloc((size_t)n + 1, sizeof(*kids));
	int ret = 0;

	for (stack_id s = 1; s < n; s++)
		kids[set->stacks[s].parent] += tot[s];
	for (stack_id s = 0; s < n && !ret; s++)
		if (kids[s] > tot[s])
			ret = tf_error_set(err, "%s node %u: base %llu, its children %llu", what, s,
					   (unsigned long long)tot[s], (unsigned long long)kids[s]);
	free(kids);
	return ret;
}

/* The comparison's caches that are current (model_check()). */
static int
diff_check(const struct model *m, struct tf_error *err)
{
	const struct model_diff *d = &m->diff;
	uint64_t g = m->generation, dg = d->dgen;
	bool w_ok = d->w_gen == g && d->w_dgen == dg;
	bool tree_ok = d->tree_gen == g && d->tree_dgen == dg;
	bool fstats_ok = d->fstats_gen == g && d->fstats_dgen == dg;
	bool sw_ok = d->sw_gen == g && d->sw_dgen == dg && d->sw_build == m->sandwich_builds &&
		     m->sandwich_gen == g;
	bool inv_ok = d->inv_gen == g && d->inv_dgen == dg && d->inv_build == m->inv_builds &&
		      model_inverted_cached(m);
	const struct profile_set *view = model_view(m);
	uint32_t n = view->nr_stacks;
	uint64_t sum = 0;

	if (d->w_gen > g || d->tree_gen > g || d->fstats_gen > g || d->ctree_gen > g ||
	    d->sw_gen > g || d->inv_gen > g || d->w_dgen > dg || d->tree_dgen > dg ||
	    d->fstats_dgen > dg || d->ctree_dgen > dg || d->sw_dgen > dg || d->inv_dgen > dg ||
	    d->sw_build > m->sandwich_builds || d->inv_build > m->inv_builds)
		return tf_error_set(err, "a base cache is newer than its generation");
	if (!diff_other(m->ps, shown(m))) {
		if (w_ok || tree_ok || fstats_ok || sw_ok || inv_ok)
			return tf_error_set(err, "base weights without a profile to compare with");
		return 0;
	}
	if (!w_ok)
		return 0;
	for (stack_id s = 0; s < n; s++)
		sum += d->view_w[s];
	if (sum != d->total)
		return tf_error_set(err, "base weights sum to %llu, its total is %llu",
				    (unsigned long long)sum, (unsigned long long)d->total);
	if (!d->normalize && d->total != d->raw_total)
		return tf_error_set(err, "base total %llu, unscaled %llu",
				    (unsigned long long)d->total, (unsigned long long)d->raw_total);
	/* Rounded down stack by stack, the scaled base never passes the shown total. */
	if (d->normalize && d->raw_total && m->w_gen == g && d->total > m->total)
		return tf_error_set(err, "base scaled to %llu, past the shown total %llu",
				    (unsigned long long)d->total, (unsigned long long)m->total);
	if (tree_ok) {
		uint64_t *want = xmalloc(sizeof(*want) * ((size_t)n + 1));
		int ret = 0;

		subtree_sums(view, d->view_w, want);
		for (stack_id s = 0; s < n && !ret; s++)
			if (want[s] != d->tree_tot[s])
				ret = tf_error_set(err, "base subtree of %u weighs %llu, not %llu",
						   s, (unsigned long long)d->tree_tot[s],
						   (unsigned long long)want[s]);
		free(want);
		if (ret)
			return ret;
		if (n && d->tree_tot[STACK_ROOT] != d->total)
			return tf_error_set(err, "base root weighs %llu of %llu",
					    (unsigned long long)d->tree_tot[STACK_ROOT],
					    (unsigned long long)d->total);
	}
	if (fstats_ok && m->funcs_built) {
		for (func_id f = 0; f < m->funcs.nr_funcs; f++)
			if (d->fstats[f].self > d->fstats[f].total || d->fstats[f].total > d->total)
				return tf_error_set(err, "function %u: base self %llu, total %llu "
							 "of %llu", f,
						    (unsigned long long)d->fstats[f].self,
						    (unsigned long long)d->fstats[f].total,
						    (unsigned long long)d->total);
	}
	if (sw_ok) {
		const struct sandwich *sw = &m->sandwich;

		if (sw->callers.nr_nodes && sw->callees.nr_nodes &&
		    d->sw_tot[0][STACK_ROOT] != d->sw_tot[1][STACK_ROOT])
			return tf_error_set(err, "base sandwich: callers weigh %llu, callees %llu",
					    (unsigned long long)d->sw_tot[0][STACK_ROOT],
					    (unsigned long long)d->sw_tot[1][STACK_ROOT]);
		if (fstats_ok && sw->callers.nr_nodes &&
		    d->sw_tot[0][STACK_ROOT] != d->fstats[sw->func].total)
			return tf_error_set(err, "base sandwich weighs %llu, its function %llu",
					    (unsigned long long)d->sw_tot[0][STACK_ROOT],
					    (unsigned long long)d->fstats[sw->func].total);
		if (check_nested(sw->callers.ps, sw->callers.nr_nodes, d->sw_tot[0], "callers",
				 err) ||
		    check_nested(sw->callees.ps, sw->callees.nr_nodes, d->sw_tot[1], "callees",
				 err))
			return -1;
	}
	if (inv_ok) {
		const struct calltree *t = &m->inv.tree;

		if (t->nr_nodes && d->inv_tot[STACK_ROOT] != d->total)
			return tf_error_set(err, "base inverted root weighs %llu of %llu",
					    (unsigned long long)d->inv_tot[STACK_ROOT],
					    (unsigned long long)d->total);
		if (check_nested(t->ps, t->nr_nodes, d->inv_tot, "inverted", err))
			return -1;
	}
	return 0;
}

int
model_check(const struct model *m, struct tf_error *err)
{
	if (model_check_own(m, err))
		return -1;
	return diff_check(m, err);
}
