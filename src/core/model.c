#include "config.h"

#include "tflame/model.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/diff.h"
#include "tflame/error.h"
#include "tflame/export.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

/*
 * Generations start at 1, so a cache whose *_gen is still 0 has never been
 * built; a change of the lens bumps the generation and every cache goes
 * stale at once, to be rebuilt by the next model_*() call that wants it.
 * The structs of stale caches are kept, released only when rebuilt, so a
 * pane that asks for nothing costs nothing.
 */

static void counted_build(struct model *m);
static void wide_build(struct model *m);
static void release_view_caches(struct model *m);

/* The index of the shown profile's counterpart, or -1. Looked up once per profile. */
static int
other_index(struct model *m)
{
	struct model_diff *d = &m->diff;

	if (d->other_of != m->lens.profile + 1) {
		const struct profile *o = diff_other(m->ps, m->ps->profiles[m->lens.profile]);

		d->other = o ? profile_set_profile_index(m->ps, o) : -1;
		d->other_of = m->lens.profile + 1;
	}
	return d->other;
}

const struct profile *
model_diff_base(struct model *m)
{
	int i = other_index(m);

	return i < 0 ? NULL : m->ps->profiles[i];
}

/* Free the comparison's caches, keeping its normalisation. */
static void
diff_release(struct model *m)
{
	struct model_diff *d = &m->diff;
	bool normalize = d->normalize;
	uint64_t dgen = d->dgen;

	free(d->set_w);
	free(d->view_w);
	free(d->tree_tot);
	free(d->fstats);
	calltree_release(&d->tree);
	free(d->sw_tot[0]);
	free(d->sw_tot[1]);
	free(d->inv_tot);
	free(d->swap_mask);
	free(d->swap_set);
	memset(d, 0, sizeof(*d));
	d->normalize = normalize;
	d->dgen = dgen;
}

void
model_init(struct model *m, struct profile_set *ps)
{
	assert(ps->nr_profiles > 0);
	memset(m, 0, sizeof(*m));
	m->ps = ps;
	lens_init(&m->lens);
	m->generation = 1;
	m->sel_gen = 1;
	m->tx_gen = 1;
	m->time_gen = 1;
	m->search_gen = 1;
	m->thread_min_stacks = MODEL_THREAD_MIN;
	sandwich_rows_init(&m->rows);
	sandwich_rows_init(&m->stash_rows);
	wide_build(m);
}

static void
thread_table_release(struct thread_table *tt)
{
	free(tt->procs);
	free(tt->threads);
	memset(tt, 0, sizeof(*tt));
}

void
model_release(struct model *m)
{
	free(m->view_p_weight);
	free(m->view_p.stack);
	free(m->counted.weight);
	free(m->wide.weight);
	free(m->base_w);
	free(m->set_base_w);
	free(m->set_set_marks);
	free(m->grp_base_w);
	free(m->grp_set_marks);
	free(m->view_w);
	calltree_release(&m->tree);
	calltree_release(&m->stash_tree);
	free(m->stash_fstats);
	sandwich_rows_release(&m->stash_rows);
	free(m->set_marks);
	timeline_release(&m->timeline);
	func_table_release(&m->funcs);
	module_names_release(&m->modnames);
	free(m->fstats);
	search_release(&m->search);
	search_index_release(&m->search_tree);
	search_index_release(&m->search_chart);
	sandwich_release(&m->sandwich);
	search_index_release(&m->search_sw[0]);
	search_index_release(&m->search_sw[1]);
	sandwich_rows_release(&m->rows);
	thread_table_release(&m->thread_tab);
	inverted_release(&m->inv);
	search_index_release(&m->search_inv);
	diff_release(m);
	/* After the caches: the timeline reads its set, a view of the lens's. */
	lens_release(&m->lens);
	profile_set_free(m->ps);
	memset(m, 0, sizeof(*m));
}

void
model_set_profile(struct model *m, size_t index)
{
	if (index >= m->ps->nr_profiles)
		BUG("profile %zu of %zu", index, m->ps->nr_profiles);
	if (index == m->lens.profile)
		return;
	m->lens.profile = index;
	wide_build(m);
	/* Grouped, model_samples() is one struct for every profile: the lanes go. */
	if (m->lens.by_process)
		m->timeline_lanes_ok = false;
	/* Counting samples holds for the next profile when it can. */
	if (m->lens.count_samples) {
		const struct profile *p = m->ps->profiles[index];

		if (!model_can_count_samples(p))
			m->lens.count_samples = false;
		else
			counted_build(m);
		m->timeline_lanes_ok = false;
	}
	m->sel_gen++;
	m->pick_gen++;
	m->generation++;
}

void
model_set_threads(struct model *m, const bool *mask)
{
	uint32_t n = m->ps->nr_threads;
	bool all = true, *keep = NULL;

	/* A thread's entries (its names) go with its first: one thread, one tick. */
	if (mask) {
		keep = xmalloc(sizeof(*keep) * ((size_t)n + 1));
		for (uint32_t i = 0; i < n; i++)
			keep[i] = mask[ps_thread(m->ps, i)];
	}
	/* A mask that keeps every thread is no filter: the fast path. */
	for (uint32_t i = 0; keep && i < n; i++)
		if (!keep[i])
			all = false;
	if (all) {
		free(keep);
		keep = NULL;
	}
	if (!keep && !m->lens.threads)
		return;
	if (keep && m->lens.threads && !memcmp(keep, m->lens.threads, sizeof(*keep) * n)) {
		free(keep);
		return;
	}
	free(m->lens.threads);
	m->lens.threads = keep;
	m->sel_gen++;
	m->pick_gen++;
	m->generation++;
}

/* What of the lens before a change of transforms or time range is current. */
struct stash_state {
	struct lens_key key;
	bool tree_ok, fstats_ok, rows_ok;
};

static void stash_before(const struct model *m, struct stash_state *before);
static void stash_after(struct model *m, const struct stash_state *before);

void
model_set_time(struct model *m, bool timed, int64_t t0, int64_t t1)
{
	struct stash_state before;

	if (timed == m->lens.timed && (!timed || (t0 == m->lens.t0 && t1 == m->lens.t1)))
		return;
	stash_before(m, &before);
	m->lens.timed = timed;
	m->lens.t0 = timed ? t0 : 0;
	m->lens.t1 = timed ? t1 : 0;
	m->sel_gen++;
	m->time_gen++;
	m->generation++;
	stash_after(m, &before);
}

/* The group's weights and marks kept while not grouped: let go. */
static void
grp_release(struct model *m)
{
	free(m->grp_base_w);
	m->grp_base_w = NULL;
	free(m->grp_set_marks);
	m->grp_set_marks = NULL;
	m->grp_id = 0;
}

void
model_set_changed(struct model *m)
{
	/* Sized by the old numbers of stacks and functions: made again. */
	free(m->base_w);
	m->base_w = NULL;
	free(m->set_base_w);
	m->set_base_w = NULL;
	free(m->set_set_marks);
	m->set_set_marks = NULL;
	grp_release(m);
	m->stack_w = NULL;
	free(m->fstats);
	m->fstats = NULL;
	func_table_release(&m->funcs);
	m->funcs_built = false;
	module_names_release(&m->modnames);
	m->lens.search_func = FUNC_NONE;
	m->timeline_lanes_ok = false;
	diff_release(m);
	/* Of the old stacks: the stashed tree's arrays stay, to build in. */
	m->stash_ok = false;
	free(m->stash_fstats);
	m->stash_fstats = NULL;
	free(m->set_marks);
	m->set_marks = NULL;
	/* The transforms' views are of the old stacks: built again from their text. */
	if (m->lens.nr_levels)
		release_view_caches(m);
	m->lens.set_marks = NULL;
	lens_rebuild(&m->lens, m->ps);
	/* The samples' stack array may be another one now, and the total another. */
	if (m->lens.count_samples)
		counted_build(m);
	wide_build(m);
	m->sel_gen++;
	m->pick_gen++;
	m->tx_gen++;
	/* The search's frames, the trees, the chart, the sandwich: all stale. */
	m->search_gen++;
	m->generation++;
}

struct sample_filter
model_filter(const struct model *m)
{
	struct sample_filter f = { .threads = m->lens.threads, .timed = m->lens.timed,
				   .t0 = m->lens.t0, .t1 = m->lens.t1 };

	return f;
}

const struct profile *
model_profile(const struct model *m)
{
	if (m->lens.count_samples)
		return &m->counted;
	if (m->wide.weight_shift)
		return &m->wide;
	return m->ps->profiles[m->lens.profile];
}

/*
 * model_profile() with each sample's stack in lens_base(): the profile
 * itself, or grouped by process a copy with the lens's stacks (and no
 * source positions, which name m->ps's stacks).
 */
static const struct profile *
model_samples(struct model *m)
{
	const struct profile *p = model_profile(m);

	if (!m->lens.by_process)
		return p;
	m->grouped = *p;
	m->grouped.stack = lens_sample_stacks(&m->lens, m->ps, m->lens.profile);
	m->grouped.src = NULL;
	return &m->grouped;
}

/* The shown profile with every weight 1, for lens.count_samples. */
static void
counted_build(struct model *m)
{
	const struct profile *p = m->ps->profiles[m->lens.profile];
	uint64_t *ones = xreallocarray(m->counted.weight, p->nr_samples + 1, sizeof(*ones));

	for (size_t i = 0; i < p->nr_samples; i++)
		ones[i] = 1;
	m->counted = *p;
	m->counted.weight = ones;
	m->counted.unit = UNIT_SAMPLES;
	m->counted.weight_decimals = 0;
	m->counted.total_weight = p->nr_samples;
	m->counted.alloc_samples = p->nr_samples;
	m->counted.figures = NULL;
	m->counted.nr_figures = m->counted.alloc_figures = 0;
}

/*
 * The shown profile scaled for the views when its total is past 64 bits
 * (model_profile()); for any other, no copy and no memory.
 */
static void
wide_build(struct model *m)
{
	const struct profile *p = m->ps->profiles[m->lens.profile];
	unsigned k = profile_wide_shift(p);
	uint64_t *w;
	weight_sum total = 0;

	if (!k) {
		free(m->wide.weight);
		memset(&m->wide, 0, sizeof(m->wide));
		return;
	}
	w = xreallocarray(m->wide.weight, p->nr_samples + 1, sizeof(*w));
	for (size_t i = 0; i < p->nr_samples; i++) {
		w[i] = profile_shift_weight(p->weight[i], k);
		total += w[i];
	}
	m->wide = *p;
	m->wide.weight = w;
	m->wide.weight_shift = k;
	m->wide.total_weight = total;
	m->wide.alloc_samples = p->nr_samples;
	/* The recorded figures are in the input's units: the tables count the samples. */
	m->wide.figures = NULL;
	m->wide.nr_figures = m->wide.alloc_figures = 0;
}

bool
model_can_count_samples(const struct profile *p)
{
	return !p->spans && !p->no_samples && p->unit != UNIT_SAMPLES && p->unit != UNIT_NONE;
}

bool
model_set_count_samples(struct model *m, bool on)
{
	const struct profile *p = m->ps->profiles[m->lens.profile];

	if (on == m->lens.count_samples)
		return true;
	if (on && !model_can_count_samples(p))
		return false;
	m->lens.count_samples = on;
	if (on)
		counted_build(m);
	/* Other weights: everything weighed goes, the lanes too. */
	m->timeline_lanes_ok = false;
	m->thread_tab_built = false;
	m->view_p_gen = 0;
	m->sel_gen++;
	m->pick_gen++;
	m->generation++;
	return true;
}

const struct profile_set *
model_view(const struct model *m)
{
	return lens_view(&m->lens, m->ps);
}

/* The set's per-stack weights of the selected samples: kept across transforms. */
static const uint64_t *
base_weights(struct model *m)
{
	struct sample_filter filter = model_filter(m);
	const struct profile_set *base = lens_base(&m->lens, m->ps);

	if (m->base_gen == m->sel_gen)
		return m->base_w;
	/* Its number of stacks changes with the group by process only, which frees these. */
	if (!m->base_w)
		m->base_w = xmalloc(sizeof(*m->base_w) * base->nr_stacks);
	m->base_total = stack_weights(base, model_samples(m), &filter, m->base_w);
	m->base_gen = m->sel_gen;
	return m->base_w;
}

const uint64_t *
model_stack_weights(struct model *m)
{
	const uint64_t *base;
	const struct profile_set *view;

	if (m->w_gen == m->generation)
		return m->stack_w;
	base = base_weights(m);
	if (!lens_map(&m->lens)) {
		m->stack_w = base;
		m->total = m->base_total;
	} else {
		view = model_view(m);
		if (m->nr_view_w < view->nr_stacks) {
			free(m->view_w);
			m->view_w = xmalloc(sizeof(*m->view_w) * view->nr_stacks);
			m->nr_view_w = view->nr_stacks;
		}
		m->total = lens_fold_weights(&m->lens, m->ps, base, m->view_w);
		m->stack_w = m->view_w;
	}
	m->w_gen = m->generation;
	return m->stack_w;
}

/*
 * The profile Time Order reads: model_profile() with each sample's stack
 * mapped through the transforms. A sample they drop keeps its time with
 * weight 0 and the empty stack, a gap in its lane, as the Firefox
 * Profiler shows dropped samples.
 */
static const struct profile *
view_profile(struct model *m)
{
	const struct profile *p = model_samples(m);
	const stack_id *map = lens_map(&m->lens);
	struct profile *vp = &m->view_p;
	stack_id *stack;
	uint64_t *weight = NULL, total = 0;

	if (!map)
		return p;
	if (m->view_p_gen == m->tx_gen && m->view_p_profile == m->lens.profile)
		return vp;
	stack = xreallocarray(vp->stack, p->nr_samples + 1, sizeof(*stack));
	vp->stack = stack;
	for (size_t i = 0; i < p->nr_samples; i++) {
		stack_id v = map[p->stack[i]];

		if (v == LENS_DROPPED || v == STACK_ROOT) {
			if (!weight) {
				weight = xreallocarray(m->view_p_weight, p->nr_samples + 1,
						       sizeof(*weight));
				m->view_p_weight = weight;
				memcpy(weight, p->weight, sizeof(*weight) * i);
			}
			stack[i] = STACK_ROOT;
			weight[i] = 0;
			continue;
		}
		stack[i] = v;
		if (weight)
			weight[i] = p->weight[i];
		total += p->weight[i];
	}
	*vp = *p;
	vp->stack = stack;
	vp->weight = weight ? weight : p->weight;
	vp->alloc_samples = p->nr_samples;
	vp->src = NULL;
	vp->total_weight = total;
	vp->figures = NULL;
	vp->nr_figures = vp->alloc_figures = 0;
	m->view_p_gen = m->tx_gen;
	m->view_p_profile = m->lens.profile;
	return vp;
}

uint64_t
model_total(struct model *m)
{
	model_stack_weights(m);
	return m->total;
}

/*
 * The function weights of a big view on a second thread, from the tree's
 * totals, while this one orders the tree's children; then the Sandwich
 * rows that follow them (rows_follow()) too, unless a search filters
 * them (the search's caches are this thread's).
 */
struct fstats_job {
	struct model *m;
	const struct profile_set *view;
	const struct func_table *ft;
	const uint64_t *w;
	bool rows;
	pthread_t thread;
};

static void *
fstats_run(void *arg)
{
	struct fstats_job *job = arg;
	struct model *m = job->m;

	xheap_huge_pages();
	func_stats_compute_sums(job->ft, job->view, job->w, m->tree.total, m->fstats);
	if (job->rows) {
		func_table_rank_names(&m->funcs, m->ps);
		sandwich_rows_build(&m->rows, m->ps, &m->funcs, m->fstats, NULL, m->rows.by,
				    m->rows.reverse, NULL);
	}
	return NULL;
}

static bool lens_keeps_all(struct model *m);
static void rows_follow(struct model *m);

/*
 * Start job, for the tree being built of w: false when the function
 * weights are current, the view small, or they are the file's own
 * figures or a comparison's, which stay for model_func_stats() to make.
 */
static bool
fstats_start(struct model *m, const uint64_t *w, struct fstats_job *job)
{
	const struct profile_set *view = model_view(m);

	if (m->fstats_gen == m->generation || view->nr_stacks < m->thread_min_stacks ||
	    model_diff_base(m) || (model_profile(m)->figures && lens_keeps_all(m)))
		return false;
	job->m = m;
	job->view = view;
	job->ft = model_funcs(m);
	job->w = w;
	job->rows = m->rows_asked && m->rows_gen != m->generation && !m->rows.filtered;
	if (!m->fstats)
		m->fstats = xmalloc(sizeof(*m->fstats) * ((size_t)job->ft->nr_funcs + 1));
	return !pthread_create(&job->thread, NULL, fstats_run, job);
}

static void
fstats_finish(struct model *m, struct fstats_job *job)
{
	pthread_join(job->thread, NULL);
	m->fstats_gen = m->generation;
	m->fstats_exact = false;
	if (job->rows) {
		m->rows_gen = m->generation;
		m->rows_sgen = m->search_gen;
		m->rows_dgen = m->diff.dgen;
	}
	rows_follow(m);
}

const struct calltree *
model_tree(struct model *m)
{
	const uint64_t *w;
	struct fstats_job job;
	bool started;

	if (m->tree_gen == m->generation)
		return &m->tree;
	w = model_stack_weights(m);
	calltree_rebuild_sums(&m->tree, model_view(m), w);
	started = fstats_start(m, w, &job);
	calltree_rebuild_order(&m->tree);
	if (started)
		fstats_finish(m, &job);
	m->tree_gen = m->generation;
	return &m->tree;
}

const struct timeline *
model_timeline(struct model *m)
{
	struct sample_filter filter = model_filter(m);
	const struct profile *p;

	if (m->chart_gen == m->generation)
		return &m->timeline;
	p = view_profile(m);
	/* The lanes built so far serve any selection of the same profile and set. */
	if (m->timeline.cache && m->timeline_lanes_ok && m->timeline.p == p) {
		timeline_select(&m->timeline, m->lens.threads ? &filter : NULL);
	} else {
		timeline_release(&m->timeline);
		timeline_build(&m->timeline, model_view(m), p, m->lens.threads ? &filter : NULL);
		m->timeline_lanes_ok = true;
	}
	m->chart_gen = m->generation;
	return &m->timeline;
}

const struct chart *
model_chart(struct model *m)
{
	model_timeline(m);
	return timeline_merged(&m->timeline);
}

/* The functions of m->ps, without marks. */
static struct func_table *
funcs_table(struct model *m)
{
	if (!m->funcs_built) {
		func_table_init(&m->funcs, m->ps);
		m->funcs_built = true;
		m->funcs_builds++;
		m->marks_gen = 0;
	}
	return &m->funcs;
}

/*
 * The outermost marks of the stacks the transforms start from
 * (lens_base(): the set's own, or grouped by process), for them to mark
 * their views from: the functions' when they are of the base, else one
 * walk of it. They depend on the stacks only: kept until the set or the
 * base changes.
 */
static const uint64_t *
set_marks(struct model *m)
{
	const struct profile_set *base = lens_base(&m->lens, m->ps);
	struct func_table marked;
	size_t words = (size_t)base->nr_stacks / 64 + 1;

	if (m->set_marks)
		return m->set_marks;
	if (!m->lens.nr_levels && m->funcs_built && m->marks_gen == m->tx_gen) {
		m->set_marks = xmemdup(m->funcs.outermost, sizeof(*m->set_marks) * words);
		return m->set_marks;
	}
	/* A shallow copy that owns only the marks it makes. */
	marked = *funcs_table(m);
	marked.outermost = NULL;
	func_table_mark_outermost(&marked, base);
	m->set_marks = marked.outermost;
	return m->set_marks;
}

const char *
model_module_name(struct model *m, str_id module)
{
	if (!m->modnames.built || m->modnames_frames != m->ps->nr_frames) {
		module_names_release(&m->modnames);
		module_names_add_set(&m->modnames, m->ps);
		module_names_build(&m->modnames);
		m->modnames_frames = m->ps->nr_frames;
	}
	return module_names_get(&m->modnames, ps_get(m->ps, module));
}

const struct func_table *
model_funcs(struct model *m)
{
	const struct profile_set *view = model_view(m);
	const struct lens_level *top =
		m->lens.nr_levels ? &m->lens.levels[m->lens.nr_levels - 1] : NULL;
	const uint64_t *marks = top ? top->outermost : m->set_marks;
	size_t words = (size_t)view->nr_stacks / 64 + 1;

	funcs_table(m);
	/*
	 * Kept for every later weight change: func stats become one pass.
	 * The transforms' passes marked their views: a copy, not a walk.
	 */
	if (m->marks_gen != m->tx_gen) {
		if (marks) {
			free(m->funcs.outermost);
			m->funcs.outermost = xmemdup(marks, sizeof(*marks) * words);
			m->funcs.nr_marked = view->nr_stacks;
		} else {
			func_table_mark_outermost(&m->funcs, view);
		}
		m->marks_gen = m->tx_gen;
	}
	return &m->funcs;
}

func_id
model_func_find(struct model *m, str_id name, str_id module)
{
	const struct func_table *ft = model_funcs(m);

	for (func_id f = 0; f < ft->nr_funcs; f++)
		if (ft->funcs[f].name == name && ft->funcs[f].module == module)
			return f;
	return FUNC_NONE;
}

bool
model_tree_rebuilt(const struct model *m)
{
	return model_profile(m)->figures != NULL;
}

/*
 * Whether the lens keeps every sample of the profile as it is: no
 * transform, and no thread filter or one that keeps every thread with
 * samples. (The formats with figures
 * have one thread, so a filter there keeps all or nothing.)
 */
static bool
lens_keeps_all(struct model *m)
{
	const struct thread_table *tt;

	if (m->lens.nr_levels || m->lens.timed || m->lens.by_process)
		return false;
	if (!m->lens.threads)
		return true;
	tt = model_thread_weights(m);
	for (uint32_t i = 0; i < tt->nr_threads; i++)
		if (!m->lens.threads[tt->threads[i].thread])
			return false;
	return true;
}

/*
 * Once the Sandwich table has been asked for, new function weights sort
 * it again at once, in the order and with the filter last asked for: a
 * change of the lens pays for it, within its budget, rather than the
 * next keystroke, and the table is ready when its pane is shown. Not in
 * a comparison, whose rows need the base's weights too, nor with a
 * filter whose search has gone.
 */
static void
rows_follow(struct model *m)
{
	const struct search *s = NULL;

	if (!m->rows_asked || m->rows_gen == m->generation || model_diff_base(m))
		return;
	if (m->rows.filtered && !(s = model_search(m)))
		return;
	model_rows_build(m, m->rows.by, m->rows.reverse, s, NULL);
}

const struct func_stats *
model_func_stats(struct model *m)
{
	const struct func_table *ft;
	const uint64_t *w;

	if (m->fstats_gen == m->generation)
		return m->fstats;
	ft = model_funcs(m);
	w = model_stack_weights(m);
	if (!m->fstats)
		m->fstats = xmalloc(sizeof(*m->fstats) * ((size_t)ft->nr_funcs + 1));
	m->fstats_gen = m->generation;
	m->fstats_exact = lens_keeps_all(m) &&
			  func_stats_figures(ft, model_profile(m), m->fstats);
	/* A current tree has the subtree sums already. */
	if (m->fstats_exact)
		;
	else if (m->tree_gen == m->generation)
		func_stats_compute_sums(ft, model_view(m), w, m->tree.total, m->fstats);
	else
		func_stats_compute(ft, model_view(m), w, m->fstats);
	rows_follow(m);
	return m->fstats;
}

bool
model_func_stats_exact(struct model *m)
{
	model_func_stats(m);
	return m->fstats_exact;
}

/* ------------------------------------------------------------ transforms */

/*
 * The transforms changed: every cache of stacks goes. A collapse-module
 * or the group by process may have added frames to the set: the
 * functions take them in (their ids unchanged, since new frames come
 * last), and the search over them and the tables sized by them are made
 * again.
 */
static void
transforms_changed(struct model *m, uint32_t frames)
{
	if (m->ps->nr_frames != frames) {
		free(m->fstats);
		m->fstats = NULL;
		m->fstats_gen = 0;
		if (m->funcs_built) {
			func_table_extend(&m->funcs, m->ps);
			m->funcs_builds++;
			m->marks_gen = 0;
		}
		m->search_gen++;
	}
	m->timeline_lanes_ok = false;
	m->tx_gen++;
	m->generation++;
}

/*
 * Before the views change (a transform pushed or popped, or all built
 * again): the timeline reads its set when released, and a view goes or
 * moves (the lens's levels grow by realloc). The other caches only
 * compare their set's address, or hold their own copies.
 */
static void
release_view_caches(struct model *m)
{
	timeline_release(&m->timeline);
	m->timeline_lanes_ok = false;
	m->chart_gen = 0;
	m->schart_gen = 0;
	search_index_release(&m->search_chart);
}

/* ----------------------------------------------------------------- stash */

static void
lens_key_now(const struct model *m, struct lens_key *k)
{
	memset(k, 0, sizeof(*k));
	k->level = m->lens.nr_levels ? m->lens.levels[m->lens.nr_levels - 1].id : 0;
	k->group = m->lens.group.id;
	k->pick_gen = m->pick_gen;
	k->timed = m->lens.timed;
	k->t0 = m->lens.t0;
	k->t1 = m->lens.t1;
}

static bool
lens_key_eq(const struct lens_key *a, const struct lens_key *b)
{
	return a->level == b->level && a->group == b->group &&
	       a->pick_gen == b->pick_gen && a->timed == b->timed && a->t0 == b->t0 &&
	       a->t1 == b->t1;
}

/* Before a change of transforms or time range: which lens is current, and what of it. */
static void
stash_before(const struct model *m, struct stash_state *before)
{
	lens_key_now(m, &before->key);
	before->tree_ok = m->tree_gen == m->generation;
	before->fstats_ok = m->fstats_gen == m->generation && m->fstats;
	before->rows_ok = m->rows_gen == m->generation;
}

/* Swap the rows of a and b, but not the sort's scratch: it stays with a, where the builds are. */
static void
rows_swap(struct sandwich_rows *a, struct sandwich_rows *b)
{
	struct sandwich_rows t = *a;
	void *scratch = a->scratch;
	size_t size = a->scratch_size;

	*a = *b;
	*b = t;
	b->scratch = a->scratch;
	b->scratch_size = a->scratch_size;
	a->scratch = scratch;
	a->scratch_size = size;
}

/*
 * After it: the tree, function weights and Sandwich rows of the lens
 * before (current then, as stash_before() says) become the stash, and
 * the stash's own become current if they are of the lens now: an undo.
 * Otherwise they are left stale, as memory for the next build. Function
 * weights are sized by the functions: only those of the same build are
 * kept, and the rows, sorted by them, only with them.
 */
static void
stash_after(struct model *m, const struct stash_state *before)
{
	struct lens_key now;
	struct calltree t;
	struct func_stats *st;
	bool hit, st_ok, exact, rows_ok;
	uint64_t rows_sgen = m->stash_rows_sgen, rows_dgen = m->stash_rows_dgen;

	lens_key_now(m, &now);
	hit = m->stash_ok && lens_key_eq(&m->stash_key, &now);
	if (!before->tree_ok && !hit)
		return;
	st_ok = m->stash_has_fstats && m->funcs_built &&
		m->stash_fstats_builds == m->funcs_builds;
	exact = m->stash_fstats_exact;
	rows_ok = m->stash_has_rows;

	t = m->stash_tree;
	m->stash_tree = m->tree;
	m->tree = t;
	m->stash_key = before->key;
	m->stash_ok = before->tree_ok;

	st = m->stash_fstats;
	if (st && !st_ok) {
		free(st);
		st = NULL;
	}
	m->stash_has_fstats = before->fstats_ok && m->fstats && m->funcs_built;
	m->stash_fstats = m->fstats;
	m->stash_fstats_exact = m->fstats_exact;
	m->stash_fstats_builds = m->funcs_builds;
	m->fstats = st;
	m->fstats_gen = 0;
	m->tree_gen = 0;

	rows_swap(&m->rows, &m->stash_rows);
	m->stash_has_rows = before->rows_ok && m->stash_has_fstats;
	m->stash_rows_sgen = m->rows_sgen;
	m->stash_rows_dgen = m->rows_dgen;
	m->rows_gen = 0;
	if (!hit)
		return;
	/* The view is the same, but may have moved with the lens's levels. */
	m->tree.ps = model_view(m);
	m->tree_gen = m->generation;
	if (st_ok && st) {
		m->fstats_exact = exact;
		m->fstats_gen = m->generation;
		/* Their search and comparison may have changed since: model_sandwich_rows() asks. */
		if (rows_ok) {
			m->rows_gen = m->generation;
			m->rows_sgen = rows_sgen;
			m->rows_dgen = rows_dgen;
		}
	}
}

int
model_push_transform(struct model *m, enum lens_kind kind, const char *arg,
		     struct tf_error *err)
{
	uint32_t frames = m->ps->nr_frames;
	struct search_re *re;
	struct stash_state before;

	/* Check the argument before the caches go: a bad one changes nothing. */
	if (lens_check_arg(kind, arg, &re, err))
		return -1;
	search_re_free(re);
	stash_before(m, &before);
	m->lens.set_marks = set_marks(m);
	release_view_caches(m);
	if (lens_push(&m->lens, m->ps, kind, arg, err))
		return -1;
	transforms_changed(m, frames);
	stash_after(m, &before);
	return 0;
}

bool
model_pop_transform(struct model *m)
{
	struct stash_state before;

	if (!m->lens.nr_levels)
		return false;
	stash_before(m, &before);
	release_view_caches(m);
	lens_pop(&m->lens);
	transforms_changed(m, m->ps->nr_frames);
	stash_after(m, &before);
	return true;
}

bool
model_redo_transform(struct model *m)
{
	uint32_t frames = m->ps->nr_frames;
	struct stash_state before;

	if (!m->lens.nr_redo)
		return false;
	stash_before(m, &before);
	m->lens.set_marks = set_marks(m);
	release_view_caches(m);
	if (!lens_redo(&m->lens, m->ps))
		return false;
	transforms_changed(m, frames);
	stash_after(m, &before);
	return true;
}

/*
 * The outermost marks of the set's own stacks (no group), if they are at
 * hand without a walk: kept for the transforms, or the functions' with
 * no transform.
 */
static const uint64_t *
own_set_marks(struct model *m)
{
	size_t words = (size_t)m->ps->nr_stacks / 64 + 1;

	if (!m->set_marks && !m->lens.nr_levels && m->funcs_built && m->marks_gen == m->tx_gen &&
	    m->funcs.outermost)
		m->set_marks = xmemdup(m->funcs.outermost, sizeof(*m->set_marks) * words);
	return m->set_marks;
}

/*
 * The lens added frames to the set that no view's stacks use yet (the
 * process frames of a group being prepared): the functions take them in
 * as transforms_changed() does, but every cache stays, the stacks being
 * the same. The new functions weigh nothing, and the marks are still of
 * the view's stacks.
 */
static void
frames_added(struct model *m)
{
	if (m->funcs_built) {
		uint64_t *marks = m->funcs.outermost;
		uint32_t nr_marked = m->funcs.nr_marked, old = m->funcs.nr_funcs;

		m->funcs.outermost = NULL;
		func_table_extend(&m->funcs, m->ps);
		free(m->funcs.outermost);
		m->funcs.outermost = marks;
		m->funcs.nr_marked = nr_marked;
		m->funcs_builds++;
		if (m->fstats) {
			m->fstats = xreallocarray(m->fstats, (size_t)m->funcs.nr_funcs + 1,
						  sizeof(*m->fstats));
			memset(m->fstats + old, 0, sizeof(*m->fstats) * (m->funcs.nr_funcs - old));
		}
	}
	/* The search's bits are per frame. */
	m->search_gen++;
	/* The model's own views of the set (the lens syncs its own). */
	if (m->sandwich.callers_ps.stacks)
		profile_set_view_sync(&m->sandwich.callers_ps, m->ps);
	if (m->sandwich.callees_ps.stacks)
		profile_set_view_sync(&m->sandwich.callees_ps, m->ps);
	if (m->inv.view.stacks)
		profile_set_view_sync(&m->inv.view, m->ps);
}

/* Whether the lens weighs every sample of its profile as recorded. */
static bool
weighs_all(const struct model *m)
{
	return !m->lens.threads && !m->lens.timed && !m->lens.count_samples &&
	       !m->wide.weight_shift;
}

bool
model_prepare_group(struct model *m)
{
	uint32_t frames = m->ps->nr_frames;

	if (m->lens.by_process || model_diff_base(m))
		return false;
	/* Its weights too, for a lens that keeps every sample as it is. */
	if (!lens_prepare_group(&m->lens, m->ps, own_set_marks(m),
				weighs_all(m) ? m->lens.profile : SIZE_MAX))
		return false;
	if (m->ps->nr_frames != frames)
		frames_added(m);
	return true;
}

/*
 * Group by process, or stop, as a change of transforms: the caches of
 * the lens before it are stashed (stash_after()), and the set's own
 * weights and marks are kept while grouped, as the lens keeps its
 * transforms' views of the set's stacks, so that stopping is a swap
 * but for what changed meanwhile.
 */
bool
model_set_by_process(struct model *m, bool on)
{
	uint32_t frames = m->ps->nr_frames;
	struct stash_state before;

	if (on == m->lens.by_process)
		return false;
	stash_before(m, &before);
	release_view_caches(m);
	if (on) {
		/* The group's marks are made from the set's, if there are any. */
		m->lens.set_marks = own_set_marks(m);
		m->set_set_marks = m->set_marks;
		m->set_base_w = m->base_w;
		m->set_base_total = m->base_total;
		m->set_base_gen = m->base_gen;
		lens_set_by_process(&m->lens, m->ps, true);
		if (m->grp_id && m->grp_id == m->lens.group.id) {
			/* The lens took its kept group back: its weights and marks come too. */
			m->set_marks = m->grp_set_marks;
			m->base_w = m->grp_base_w;
			m->base_total = m->grp_base_total;
			m->base_gen = m->grp_base_gen;
			m->grp_set_marks = NULL;
			m->grp_base_w = NULL;
			m->grp_id = 0;
		} else {
			struct lens_group *g = &m->lens.group;

			grp_release(m);
			m->set_marks = g->marks ? xmemdup(g->marks, sizeof(*m->set_marks) *
								     (g->set.nr_stacks / 64 + 1))
						: NULL;
			m->base_w = NULL;
			m->base_gen = 0;
			/* A group made ahead brings the weights of every sample. */
			if (g->weights && g->weights_of == m->lens.profile && weighs_all(m)) {
				m->base_w = g->weights;
				m->base_total = g->weights_total;
				m->base_gen = m->sel_gen;
				g->weights = NULL;
			}
			/* Not taken (weighed otherwise since): no later change reads them. */
			free(g->weights);
			g->weights = NULL;
		}
	} else {
		grp_release(m);
		m->grp_set_marks = m->set_marks;
		m->grp_base_w = m->base_w;
		m->grp_base_total = m->base_total;
		m->grp_base_gen = m->base_gen;
		m->grp_id = m->lens.group.id;
		m->set_marks = m->set_set_marks;
		m->lens.set_marks = m->set_marks;
		lens_set_by_process(&m->lens, m->ps, false);
		m->base_w = m->set_base_w;
		m->base_total = m->set_base_total;
		m->base_gen = m->set_base_gen;
		m->set_set_marks = NULL;
		m->set_base_w = NULL;
	}
	m->lens.set_marks = NULL;
	m->view_p_gen = 0;
	transforms_changed(m, frames);
	/*
	 * The tree is stashed only when the stash has room for the next
	 * one. A grouped tree has a node per (stack, process), some 100 MB
	 * at 10 M samples, and fresh memory that size cost more than the
	 * build (xalloc.c): without the room, the next tree grows in this
	 * one's pages, and the tree P goes back to is built again, in
	 * memory it has touched. With it (a transform's tree stashed
	 * meanwhile), going back is a swap.
	 */
	if (m->stash_tree.alloc_nodes < model_view(m)->nr_stacks)
		before.tree_ok = false;
	stash_after(m, &before);
	return true;
}

/*
 * Sample i, on stack s at time[i] (read only with a time range), as the
 * lens sees it: its view stack, or LENS_DROPPED when the time range
 * leaves it out or the transforms drop or empty its stack (a sample on
 * the empty stack itself counts while there are no transforms, as
 * stack_weights() counts it). s is of lens_base() (model_samples()'s
 * stacks). The thread filter is the caller's.
 */
static stack_id
sample_view_stack(const struct model *m, stack_id s, const int64_t *time, size_t i)
{
	const stack_id *map = lens_map(&m->lens);

	if (m->lens.timed && (time[i] < m->lens.t0 || time[i] >= m->lens.t1))
		return LENS_DROPPED;
	if (map) {
		s = map[s];
		if (s == STACK_ROOT)
			return LENS_DROPPED;
	}
	return s;
}

/* export_sample_fn: sample i's view stack under the transforms and time range. */
static stack_id
lens_sample_stack(void *ctx, size_t i)
{
	const struct model *m = ctx;
	stack_id s = sample_view_stack(m, lens_sample_stacks(&m->lens, m->ps, m->lens.profile)[i],
				       model_profile(m)->time, i);

	return s == LENS_DROPPED ? EXPORT_DROP : s;
}

void
model_export_lens(struct model *m, struct export_lens *el)
{
	el->ps = model_view(m);
	el->p = model_samples(m);
	el->stack_w = model_stack_weights(m);
	el->exact_weight = model_profile(m) == &m->wide ? m->ps->profiles[m->lens.profile]->weight
							: NULL;
	el->threads = m->lens.threads;
	el->sample_stack = NULL;
	el->ctx = NULL;
	/* Grouped by process, el->p has the grouped stacks already. */
	if (lens_map(&m->lens) || m->lens.timed) {
		el->sample_stack = lens_sample_stack;
		el->ctx = m;
	}
}

void
model_bake_lens(struct model *m)
{
	release_view_caches(m);
	lens_bake(&m->lens, m->ps);
	model_set_changed(m);
	m->tx_gen++;
}

/* Compile a regex of option opt, or say why not in err. */
static struct search_re *
spec_regex(const char *opt, const char *re, struct tf_error *err)
{
	struct search_re *r;
	size_t offset;

	r = search_re_new(re, strlen(re), &offset, err);
	if (!r) {
		struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;

		text_escape_str(&sb, re);
		text_escape_str(&why, tf_error_text(err));
		tf_error_set(err, "--%s '%s': %s", opt, sb.buf, why.buf);
		strbuf_release(&why);
		strbuf_release(&sb);
	}
	return r;
}

static int
spec_event(struct model *m, const char *event, const char *name, struct tf_error *err)
{
	const struct profile_set *ps = m->ps;
	struct strbuf names = STRBUF_INIT, ev = STRBUF_INIT;
	struct profile *p;
	size_t nr = profile_set_find_event(ps, event, &p);

	if (p) {
		model_set_profile(m, (size_t)profile_set_profile_index(ps, p));
		return 0;
	}
	/* Ambiguous: the events it could mean; else all of them. */
	for (size_t i = 0, n = 0; i < ps->nr_profiles; i++) {
		if (nr && !profile_event_named(ps, ps->profiles[i], event))
			continue;
		strbuf_addstr(&names, n++ ? ", " : "");
		text_escape_str(&names, ps_get(ps, ps->profiles[i]->name));
	}
	text_escape_str(&ev, event);
	if (nr)
		tf_error_set(err, "%s: event %s is ambiguous: it could be %s", name, ev.buf,
			     names.buf);
	else
		tf_error_set(err, "%s: no event named %s (events: %s)", name, ev.buf, names.buf);
	strbuf_release(&names);
	strbuf_release(&ev);
	return -1;
}

static int
spec_threads(struct model *m, const struct lens_spec *spec, const char *name,
	     struct tf_error *err)
{
	bool *mask = xcalloc((size_t)m->ps->nr_threads + 1, sizeof(*mask));
	int ret = 0;

	for (size_t i = 0; i < spec->nr_tids && !ret; i++)
		if (!model_mark_threads(m, THREAD_BY_TID, spec->tids[i], NULL, mask))
			ret = tf_error_set(err, "%s: no thread with tid %lld", name,
					   (long long)spec->tids[i]);
	for (size_t i = 0; i < spec->nr_pids && !ret; i++)
		if (!model_mark_threads(m, THREAD_BY_PID, spec->pids[i], NULL, mask))
			ret = tf_error_set(err, "%s: no process with pid %lld", name,
					   (long long)spec->pids[i]);
	if (spec->comm && !ret) {
		struct search_re *re = spec_regex("comm", spec->comm, err);

		if (!re) {
			ret = -1;
		} else {
			if (!model_mark_threads(m, THREAD_BY_COMM, 0, re, mask)) {
				struct strbuf sb = STRBUF_INIT;

				text_escape_str(&sb, spec->comm);
				ret = tf_error_set(err, "%s: no thread named like '%s'", name,
						   sb.buf);
				strbuf_release(&sb);
			}
			search_re_free(re);
		}
	}
	if (!ret)
		model_set_threads(m, mask);
	free(mask);
	return ret;
}

/* Push one "KIND:ARG"; where names the text for messages ("--transform"). */
static int
spec_transform(struct model *m, const char *text, const char *where, struct tf_error *err)
{
	enum lens_kind kind;
	const char *arg;

	if (lens_parse_transform(text, &kind, &arg, err) ||
	    model_push_transform(m, kind, arg, err)) {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, tf_error_text(err));
		tf_error_set(err, "%s: %s", where, sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	return 0;
}

/* The transforms of a lens file, one "KIND:ARG" a line. */
static int
spec_file(struct model *m, const char *path, struct tf_error *err)
{
	struct strbuf where = STRBUF_INIT, line = STRBUF_INIT;
	FILE *f = fopen(path, "r");
	uint64_t nr = 0;
	int c, ret = 0;

	text_escape_str(&where, path);
	if (!f) {
		ret = tf_error_set(err, "cannot open %s: %s", where.buf, strerror(errno));
		strbuf_release(&where);
		return ret;
	}
	while (!ret) {
		strbuf_setlen(&line, 0);
		while ((c = getc(f)) != EOF && c != '\n')
			strbuf_addch(&line, (char)c);
		if (c == EOF && !line.len)
			break;
		nr++;
		while (line.len && (line.buf[line.len - 1] == '\r' || line.buf[line.len - 1] == ' '))
			strbuf_setlen(&line, line.len - 1);
		if (!line.len || line.buf[0] == '#')
			continue;
		if (!strcmp(line.buf, LENS_BY_PROCESS_LINE)) {
			model_set_by_process(m, true);
			continue;
		}
		if (strlen(line.buf) != line.len) {
			ret = tf_error_set(err, "%s:%llu: a NUL byte in the line", where.buf,
					   (unsigned long long)nr);
			break;
		}
		strbuf_setlen(&where, 0);
		text_escape_str(&where, path);
		strbuf_addf(&where, ":%llu", (unsigned long long)nr);
		ret = spec_transform(m, line.buf, where.buf, err);
		strbuf_setlen(&where, 0);
		text_escape_str(&where, path);
	}
	if (!ret && ferror(f))
		ret = tf_error_set(err, "cannot read %s: %s", where.buf, strerror(errno));
	fclose(f);
	strbuf_release(&line);
	strbuf_release(&where);
	return ret;
}

/* The --time message, as model_apply_spec() and model_check_spec() give it. */
static int
time_error(struct tf_error *err)
{
	struct strbuf why = STRBUF_INIT;
	int ret;

	text_escape_str(&why, tf_error_text(err));
	ret = tf_error_set(err, "--time: %s", why.buf);
	strbuf_release(&why);
	return ret;
}

int
model_check_spec(const struct lens_spec *spec, struct tf_error *err)
{
	const char *const res[2][2] = { { "search", spec->search }, { "comm", spec->comm } };

	for (int i = 0; i < 2; i++) {
		struct search_re *re;

		if (!res[i][1])
			continue;
		re = spec_regex(res[i][0], res[i][1], err);
		if (!re)
			return -1;
		search_re_free(re);
	}
	if (spec->time && lens_check_time(spec->time, err))
		return time_error(err);
	for (size_t i = 0; i < spec->nr_transforms; i++) {
		enum lens_kind kind;
		const char *arg;

		if (lens_parse_transform(spec->transforms[i], &kind, &arg, err)) {
			struct strbuf sb = STRBUF_INIT;

			text_escape_str(&sb, tf_error_text(err));
			tf_error_set(err, "--transform: %s", sb.buf);
			strbuf_release(&sb);
			return -1;
		}
	}
	return 0;
}

int
model_apply_spec(struct model *m, const struct lens_spec *spec, const char *path,
		 struct tf_error *err)
{
	struct strbuf name = STRBUF_INIT;
	int ret = 0;

	text_escape_str(&name, path);
	if (spec->event)
		ret = spec_event(m, spec->event, name.buf, err);
	if (!ret && lens_spec_filters_threads(spec))
		ret = spec_threads(m, spec, name.buf, err);
	if (!ret && spec->search) {
		struct search_re *re = spec_regex("search", spec->search, err);

		if (re)
			model_set_search(m, re);
		else
			ret = -1;
	}
	if (!ret && spec->time) {
		int64_t t0, t1;

		if (lens_parse_time(spec->time, model_profile(m), &t0, &t1, err))
			ret = time_error(err);
		else
			model_set_time(m, true, t0, t1);
	}
	if (!ret && spec->by_process)
		model_set_by_process(m, true);
	if (!ret && spec->file)
		ret = spec_file(m, spec->file, err);
	for (size_t i = 0; i < spec->nr_transforms && !ret; i++)
		ret = spec_transform(m, spec->transforms[i], "--transform", err);
	if (!ret)
		model_set_inverted(m, spec->inverted);
	strbuf_release(&name);
	return ret;
}

/* ---------------------------------------------------------------- search */

void
model_set_search(struct model *m, struct search_re *re)
{
	if (re == m->lens.search_re && m->lens.search_func == FUNC_NONE)
		return;
	search_re_free(m->lens.search_re);
	m->lens.search_re = re;
	m->lens.search_func = FUNC_NONE;
	m->search_gen++;
}

void
model_set_search_func(struct model *m, func_id func)
{
	if (func != FUNC_NONE && func >= model_funcs(m)->nr_funcs)
		BUG("function %u of %u", func, m->funcs.nr_funcs);
	if (func == m->lens.search_func && !m->lens.search_re)
		return;
	search_re_free(m->lens.search_re);
	m->lens.search_re = NULL;
	m->lens.search_func = func;
	m->search_gen++;
}

func_id
model_search_func(const struct model *m)
{
	return m->lens.search_func;
}

struct search_re *
model_search_re(const struct model *m)
{
	return m->lens.search_re;
}

const struct search *
model_search(struct model *m)
{
	const struct func_table *ft;

	if (!m->lens.search_re && m->lens.search_func == FUNC_NONE)
		return NULL;
	if (m->search_built == m->search_gen)
		return &m->search;
	ft = model_funcs(m);
	search_release(&m->search);
	if (m->lens.search_re)
		search_init(&m->search, m->lens.search_re, m->ps, ft);
	else
		search_init_func(&m->search, m->ps, ft, m->lens.search_func);
	m->search_built = m->search_gen;
	return &m->search;
}

const struct search_index *
model_search_tree(struct model *m)
{
	const struct search *s = model_search(m);
	const struct calltree *t;

	if (!s)
		return NULL;
	t = model_tree(m);
	if (m->stree_gen == m->generation && m->stree_sgen == m->search_gen)
		return &m->search_tree;
	search_index_release(&m->search_tree);
	search_index_tree(&m->search_tree, s, t);
	m->stree_gen = m->generation;
	m->stree_sgen = m->search_gen;
	return &m->search_tree;
}

const struct search_index *
model_search_chart(struct model *m)
{
	return model_search_lane(m, model_chart(m));
}

/* Whether c is model_timeline()'s merged chart or one of its lanes. */
static bool
timeline_has(const struct timeline *tl, const struct chart *c)
{
	return c == &tl->merged || (c >= tl->lanes && c < tl->lanes + tl->nr_lanes);
}

const struct search_index *
model_search_lane(struct model *m, const struct chart *c)
{
	const struct search *s = model_search(m);

	if (!s)
		return NULL;
	if (!timeline_has(model_timeline(m), c))
		BUG("a search over a chart that is not the model's");
	if (m->schart_gen == m->generation && m->schart_sgen == m->search_gen &&
	    m->search_chart.chart == c)
		return &m->search_chart;
	search_index_release(&m->search_chart);
	search_index_chart(&m->search_chart, s, c);
	m->schart_gen = m->generation;
	m->schart_sgen = m->search_gen;
	return &m->search_chart;
}

uint64_t
model_search_matched(struct model *m)
{
	const struct search *s = model_search(m);

	if (!s)
		return 0;
	if (s->funcs_matched == 1 && model_func_stats_exact(m)) {
		const struct func_stats *st = model_func_stats(m);

		for (func_id f = 0; f < s->nr_funcs; f++)
			if (search_func(s, f))
				return st[f].total;
	}
	return search_index_matched(model_search_tree(m), 0, model_total(m));
}

/* -------------------------------------------------------------- inverted */

void
model_set_inverted(struct model *m, bool inverted)
{
	m->inverted = inverted;
}

const struct inverted *
model_inverted(struct model *m)
{
	const struct calltree *t;

	if (model_inverted_cached(m))
		return &m->inv;
	t = model_tree(m);
	inverted_release(&m->inv);
	inverted_build(&m->inv, t);
	m->inv_gen = m->generation;
	m->inv_builds++;
	return &m->inv;
}

bool
model_inverted_cached(const struct model *m)
{
	return m->inv_gen == m->generation && m->inv_builds;
}

const struct search_index *
model_search_inverted(struct model *m)
{
	const struct search *s = model_search(m);

	if (!s)
		return NULL;
	model_inverted(m);
	if (m->sinv_build == m->inv_builds && m->sinv_sgen == m->search_gen)
		return &m->search_inv;
	search_index_release(&m->search_inv);
	search_index_tree(&m->search_inv, s, &m->inv.tree);
	m->sinv_build = m->inv_builds;
	m->sinv_sgen = m->search_gen;
	return &m->search_inv;
}

/* -------------------------------------------------------------- sandwich */

const struct sandwich *
model_sandwich(struct model *m, func_id func)
{
	const struct func_table *ft = model_funcs(m);
	const struct calltree *t;

	if (model_sandwich_cached(m, func))
		return &m->sandwich;
	t = model_tree(m);
	sandwich_release(&m->sandwich);
	sandwich_build(&m->sandwich, t, ft, func);
	m->sandwich_gen = m->generation;
	m->sandwich_builds++;
	return &m->sandwich;
}

bool
model_sandwich_cached(const struct model *m, func_id func)
{
	return m->sandwich_gen == m->generation && m->sandwich.func == func;
}

/*
 * An index is of one build of the sandwich, not of its function: the
 * function's trees built again (after another function's) are new stack
 * views, whatever their ids.
 */
const struct search_index *
model_search_sandwich(struct model *m, func_id func, bool callees)
{
	const struct search *s = model_search(m);
	const struct sandwich *sw;
	int i = callees;

	if (!s)
		return NULL;
	sw = model_sandwich(m, func);
	if (m->ssw_build[i] == m->sandwich_builds && m->ssw_sgen[i] == m->search_gen)
		return &m->search_sw[i];
	search_index_release(&m->search_sw[i]);
	search_index_tree(&m->search_sw[i], s, callees ? &sw->callees : &sw->callers);
	m->ssw_build[i] = m->sandwich_builds;
	m->ssw_sgen[i] = m->search_gen;
	return &m->search_sw[i];
}

void
model_rows_build(struct model *m, enum sandwich_sort by, bool reverse, const struct search *s,
	   const struct func_stats *base)
{
	/* Ranked once per build of the functions: every table after sorts numbers. */
	model_funcs(m);
	func_table_rank_names(&m->funcs, m->ps);
	sandwich_rows_build(&m->rows, m->ps, &m->funcs, m->fstats, base, by, reverse, s);
	m->rows_gen = m->generation;
	m->rows_sgen = m->search_gen;
	m->rows_dgen = m->diff.dgen;
}

/* --------------------------------------------------------------- threads */

/* A thread with samples, while the table is sorted: by pid, then heaviest. */
struct thread_row {
	int64_t pid, tid;
	struct thread_weight tw;
};

static int
cmp_thread_row(const void *a, const void *b)
{
	const struct thread_row *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tw.weight != y->tw.weight)
		return x->tw.weight > y->tw.weight ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->tw.thread < y->tw.thread ? -1 : x->tw.thread > y->tw.thread;
}

static int
cmp_process(const void *a, const void *b)
{
	const struct process_weight *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void
thread_table_build(struct thread_table *tt, const struct profile_set *ps,
		   const struct profile *p, const struct lens *l)
{
	uint32_t n = ps->nr_threads, nr = 0;
	struct thread_weight *per = xcalloc((size_t)n + 1, sizeof(*per));
	struct thread_row *rows;
	size_t alloc_procs = 0;

	memset(tt, 0, sizeof(*tt));
	tt->total = 0;
	for (size_t i = 0; i < p->nr_samples; i++) {
		thread_id t = ps_thread(ps, p->thread[i]);

		if (l->timed && (p->time[i] < l->t0 || p->time[i] >= l->t1))
			continue;
		per[t].weight += p->weight[i];
		per[t].samples++;
		tt->total += p->weight[i];
	}
	rows = xmalloc(sizeof(*rows) * ((size_t)n + 1));
	for (thread_id t = 0; t < n; t++) {
		if (!per[t].samples)
			continue;
		rows[nr].pid = ps->threads[t].pid;
		rows[nr].tid = ps->threads[t].tid;
		rows[nr].tw = per[t];
		rows[nr].tw.thread = t;
		nr++;
	}
	free(per);
	qsort(rows, nr, sizeof(*rows), cmp_thread_row);

	/* Each run of one pid is a process; its threads are already in order. */
	for (uint32_t i = 0; i < nr;) {
		struct process_weight pw = { rows[i].pid, STR_EMPTY, 0, 0, i, 0 };
		str_id main_comm = STR_EMPTY;
		bool has_main = false;

		pw.comm = profile_thread_comm(ps, rows[i].tw.thread);
		for (; i < nr && rows[i].pid == pw.pid; i++) {
			pw.weight += rows[i].tw.weight;
			pw.samples += rows[i].tw.samples;
			pw.nr++;
			if (!has_main && rows[i].tid == pw.pid && pw.pid >= 0) {
				main_comm = profile_thread_comm(ps, rows[i].tw.thread);
				has_main = true;
			}
		}
		if (has_main)
			pw.comm = main_comm;
		ALLOC_GROW(tt->procs, tt->nr_procs, alloc_procs);
		tt->procs[tt->nr_procs++] = pw;
	}
	if (tt->nr_procs > 1)
		qsort(tt->procs, tt->nr_procs, sizeof(*tt->procs), cmp_process);

	/* Lay the threads out in the processes' new order. */
	tt->threads = xmalloc(sizeof(*tt->threads) * ((size_t)nr + 1));
	for (uint32_t i = 0; i < tt->nr_procs; i++) {
		struct process_weight *pw = &tt->procs[i];

		for (uint32_t j = 0; j < pw->nr; j++)
			tt->threads[tt->nr_threads + j] = rows[pw->first + j].tw;
		pw->first = tt->nr_threads;
		tt->nr_threads += pw->nr;
	}
	free(rows);
}

const struct thread_table *
model_thread_weights(struct model *m)
{
	if (m->thread_tab_built && m->thread_tab_profile == m->lens.profile &&
	    m->thread_tab_time == m->time_gen)
		return &m->thread_tab;
	thread_table_release(&m->thread_tab);
	thread_table_build(&m->thread_tab, m->ps, model_profile(m), &m->lens);
	m->thread_tab_profile = m->lens.profile;
	m->thread_tab_time = m->time_gen;
	m->thread_tab_built = true;
	return &m->thread_tab;
}

size_t
model_kept_thread_weights(struct model *m, struct thread_weight *out)
{
	const struct profile *p = model_samples(m);
	const bool *keep = m->lens.threads;
	size_t kept = 0;

	memset(out, 0, sizeof(*out) * m->ps->nr_threads);
	for (size_t i = 0; i < p->nr_samples; i++) {
		thread_id t = p->thread[i];

		if ((keep && !keep[t]) || sample_view_stack(m, p->stack[i], p->time, i) == LENS_DROPPED)
			continue;
		t = ps_thread(m->ps, t);
		out[t].weight += p->weight[i];
		out[t].samples++;
		kept++;
	}
	return kept;
}

/*
 * Add [a, b) (in columns, 0 <= a <= b <= cols) to a row of activity: the
 * partial columns at its ends into acc, the whole ones between as a
 * difference in diff (cols + 1 entries), so a long span costs O(1).
 */
static void
add_cover(double *acc, double *diff, uint32_t cols, double a, double b)
{
	uint32_t i0 = (uint32_t)a, i1 = (uint32_t)b;

	if (i0 >= cols)
		i0 = cols - 1;
	if (i1 > cols)
		i1 = cols;
	if (i0 == i1) {
		acc[i0] += b - a;
		return;
	}
	acc[i0] += (double)(i0 + 1) - a;
	if (i1 < cols)
		acc[i1] += b - (double)i1;
	diff[i0 + 1] += 1;
	diff[i1] -= 1;
}

/* Add the span of len ns from ns from the start, scale columns per ns. */
static void
add_span(double *acc, double *diff, uint32_t cols, double scale, double from, double len)
{
	double a = from * scale, b = (from + len) * scale;

	if (a < 0)
		a = 0;
	if (b > cols)
		b = cols;
	if (a < b)
		add_cover(acc, diff, cols, a, b);
}

bool
model_thread_activity(struct model *m, uint32_t cols, float *out)
{
	const struct thread_table *tt = model_thread_weights(m);
	const struct profile *p = model_profile(m);
	const struct profile_set *ps = m->ps;
	uint32_t *row;
	int64_t *last;
	double *acc, *diff, range, scale;
	uint64_t period = 0, cap = 0;

	if (!cols || !p->has_time || !p->nr_samples)
		return false;
	if (!p->spans) {
		period = chart_axis_period(ps, p);
		if (!period)
			period = ((uint64_t)p->time_max - (uint64_t)p->time_min) / p->nr_samples;
		if (!period)
			period = 1;
		cap = period > UINT64_MAX / 3 ? UINT64_MAX : period * 3;
	}
	/* As Time Order's axis: an instant sample lasts a period past the last. */
	range = (double)((uint64_t)p->time_max - (uint64_t)p->time_min) + (double)period;
	if (range <= 0)
		return false;
	scale = cols / range;
	row = xmalloc(sizeof(*row) * ((size_t)ps->nr_threads + 1));
	last = xmalloc(sizeof(*last) * ((size_t)tt->nr_threads + 1));
	acc = xcalloc((size_t)tt->nr_threads * cols + 1, sizeof(*acc));
	diff = xcalloc((size_t)tt->nr_threads * (cols + 1) + 1, sizeof(*diff));
	for (thread_id t = 0; t < ps->nr_threads; t++)
		row[t] = UINT32_MAX;
	for (uint32_t i = 0; i < tt->nr_threads; i++) {
		row[tt->threads[i].thread] = i;
		last[i] = INT64_MIN;
	}
	/* Every name of a thread is its row. */
	for (thread_id t = 0; t < ps->nr_threads; t++)
		row[t] = row[ps_thread(ps, t)];
	for (size_t k = 0; k < p->nr_samples; k++) {
		uint32_t r = row[p->thread[k]];
		int64_t t = p->time[k], from = t;
		uint64_t len;

		if (!p->weight[k] || r == UINT32_MAX)
			continue;
		if (p->spans) {
			len = p->weight[k];
		} else {
			/* The thread's previous sample lasts until this one, as in a lane. */
			if (last[r] == INT64_MIN) {
				last[r] = t;
				continue;
			}
			from = last[r];
			len = t >= from && (uint64_t)t - (uint64_t)from <= cap
				      ? (uint64_t)t - (uint64_t)from
				      : period;
			last[r] = t;
		}
		add_span(acc + (size_t)r * cols, diff + (size_t)r * (cols + 1), cols, scale,
			 (double)from - (double)p->time_min, (double)len);
	}
	for (uint32_t r = 0; r < tt->nr_threads && !p->spans; r++)
		if (last[r] != INT64_MIN)
			add_span(acc + (size_t)r * cols, diff + (size_t)r * (cols + 1), cols, scale,
				 (double)last[r] - (double)p->time_min, (double)period);
	for (uint32_t r = 0; r < tt->nr_threads; r++) {
		double run = 0;

		for (uint32_t c = 0; c < cols; c++) {
			double v;

			run += diff[(size_t)r * (cols + 1) + c];
			v = acc[(size_t)r * cols + c] + run;
			out[(size_t)r * cols + c] = (float)(v < 0 ? 0 : v > 1 ? 1 : v);
		}
	}
	free(diff);
	free(acc);
	free(last);
	free(row);
	return true;
}

uint32_t
model_mark_threads(const struct model *m, enum thread_key by, int64_t id, struct search_re *re,
		   bool *mask)
{
	const struct profile_set *ps = m->ps;
	bool *hit_thread = xcalloc((size_t)ps->nr_threads + 1, sizeof(*hit_thread));
	uint32_t nr = 0;

	/* A thread matches by any of its names (entries), and counts once. */
	for (thread_id t = 0; t < ps->nr_threads; t++) {
		const struct thread *th = &ps->threads[t];
		bool hit = false;

		switch (by) {
		case THREAD_BY_TID:
			hit = th->tid == id;
			break;
		case THREAD_BY_PID:
			hit = th->pid == id;
			break;
		case THREAD_BY_COMM:
			hit = re && search_re_match(re, ps_get(ps, th->comm),
						    intern_len(&ps->strings, th->comm));
			break;
		}
		if (hit && !hit_thread[th->first]) {
			hit_thread[th->first] = true;
			nr++;
		}
	}
	for (thread_id t = 0; t < ps->nr_threads; t++)
		if (hit_thread[ps_thread(ps, t)])
			mask[t] = true;
	free(hit_thread);
	return nr;
}

/* Whether a and b are one thread, seen by two events (or across an exec). */
static bool
same_thread(const struct profile_set *ps, const struct thread *a, const struct thread *b)
{
	/* A known tid is one thread whatever its names (it exec'd). */
	if (a->pid != b->pid || a->tid != b->tid)
		return false;
	if (a->first == b->first)
		return true;
	return a->comm == b->comm || a->comm == STR_EMPTY || b->comm == STR_EMPTY ||
	       !strcmp(ps_get(ps, a->comm), ps_get(ps, b->comm));
}

uint32_t
model_carry_threads(struct model *m, bool *mask)
{
	const struct profile_set *ps = m->ps;
	const struct thread_table *tt = model_thread_weights(m);
	bool *here = xcalloc(ps->nr_threads + 1, sizeof(*here));
	uint32_t nr = 0;

	bool all = true;

	for (uint32_t i = 0; i < tt->nr_threads; i++) {
		here[tt->threads[i].thread] = true;
		all = all && mask[tt->threads[i].thread];
	}
	/* Every thread of this profile ticked: no filter, here or elsewhere. */
	for (thread_id t = 0; all && t < ps->nr_threads; t++)
		mask[t] = true;
	/*
	 * Threads x ticked threads: a picker's choice is a handful, and this
	 * runs once per Enter, not per sample.
	 */
	for (thread_id t = 0; !all && t < ps->nr_threads; t++) {
		if (here[t])
			continue;
		if (here[ps_thread(ps, t)]) {
			/* Another name of a thread of this profile: its tick. */
			mask[t] = mask[ps_thread(ps, t)];
			continue;
		}
		mask[t] = false;
		for (uint32_t i = 0; i < tt->nr_threads && !mask[t]; i++) {
			thread_id u = tt->threads[i].thread;

			mask[t] = mask[u] && same_thread(ps, &ps->threads[t], &ps->threads[u]);
		}
		nr += mask[t];
	}
	free(here);
	return nr;
}

static int
thread_table_check(const struct thread_table *tt, const struct profile_set *ps,
		   const struct profile *p, bool timed, struct tf_error *err)
{
	uint64_t sum = 0, samples = 0;
	uint32_t next = 0;

	for (uint32_t i = 0; i < tt->nr_procs; i++) {
		const struct process_weight *pw = &tt->procs[i];
		uint64_t w = 0, n = 0;

		if (i && cmp_process(&tt->procs[i - 1], pw) >= 0)
			return tf_error_set(err, "processes %u and %u out of order", i - 1, i);
		if (pw->first != next || !pw->nr)
			return tf_error_set(err, "process %u: threads from %u, not %u", i,
					    pw->first, next);
		next += pw->nr;
		if (next > tt->nr_threads)
			return tf_error_set(err, "process %u: threads past the end", i);
		for (uint32_t j = pw->first; j < next; j++) {
			const struct thread_weight *tw = &tt->threads[j];

			if (tw->thread >= ps->nr_threads || ps->threads[tw->thread].pid != pw->pid)
				return tf_error_set(err, "thread row %u is not process %u's", j, i);
			if (!tw->samples || (j > pw->first && tw->weight > tw[-1].weight))
				return tf_error_set(err, "thread row %u: empty or out of order", j);
			w += tw->weight;
			n += tw->samples;
		}
		if (w != pw->weight || n != pw->samples)
			return tf_error_set(err, "process %u: threads do not add up", i);
		sum += w;
		samples += n;
	}
	if (next != tt->nr_threads)
		return tf_error_set(err, "%u thread rows, %u in processes", tt->nr_threads, next);
	/* A time range keeps some of the samples: they add up to its total. */
	/* The views add in 64 bits: a total past them wraps as theirs do. */
	if (sum != tt->total ||
	    (!timed && (samples != p->nr_samples || tt->total != (uint64_t)p->total_weight)))
		return tf_error_set(err, "thread weights sum to %llu of %llu",
				    (unsigned long long)sum,
				    (unsigned long long)p->total_weight);
	return 0;
}

/* Whether marks (for set's stacks) are what a walk of set marks; "what" names them. */
static int
check_marks_of(const struct func_table *ft, const struct profile_set *set,
	       const uint64_t *marks, const char *what, struct tf_error *err)
{
	struct func_table walked = *ft;
	int ret = 0;

	walked.outermost = NULL;
	func_table_mark_outermost(&walked, set);
	for (stack_id s = 1; s < set->nr_stacks && !ret; s++) {
		bool want = func_table_outermost(&walked, s);

		if (want != (marks[s >> 6] >> (s & 63) & 1))
			ret = tf_error_set(err, "%s stack %u %s outermost", what, s,
					   want ? "is, not marked" : "is not, yet marked");
	}
	free(walked.outermost);
	return ret;
}

/*
 * The functions, and their outermost marks when current: copied from a
 * transform's pass or the set's, they must be what a walk of the view
 * marks.
 */
static int
check_marks(const struct model *m, struct tf_error *err)
{
	const struct profile_set *view = model_view(m);
	struct func_table ft = m->funcs;

	if (m->marks_gen != m->tx_gen)
		ft.outermost = NULL;
	if (func_table_check(&ft, view, err))
		return -1;
	if (ft.outermost && ft.nr_marked != view->nr_stacks)
		return tf_error_set(err, "outermost marks for %u of %u stacks", ft.nr_marked,
				    view->nr_stacks);
	if (ft.outermost && check_marks_of(&ft, view, ft.outermost, "view", err))
		return -1;
	if (m->set_marks &&
	    check_marks_of(&ft, lens_base(&m->lens, m->ps), m->set_marks, "base", err))
		return -1;
	return 0;
}

/* The caches that model_check() looks at beyond the lens's own. */
static int
check_more(const struct model *m, struct tf_error *err)
{
	const struct profile_set *ps = m->ps;
	uint64_t g = m->generation, sg = m->search_gen;
	bool searched = (m->lens.search_re || m->lens.search_func != FUNC_NONE) &&
			m->search_built == sg;
	bool compared = diff_other(ps, ps->profiles[m->lens.profile]) != NULL;

	if (m->search_built > sg || m->stree_sgen > sg || m->schart_sgen > sg ||
	    m->rows_sgen > sg || m->stree_gen > g || m->schart_gen > g ||
	    m->sandwich_gen > g || m->rows_gen > g)
		return tf_error_set(err, "a cache is newer than its generation");
	if (searched && !m->funcs_built)
		return tf_error_set(err, "a search without functions");
	if (searched && search_check(&m->search, ps, &m->funcs, err))
		return -1;
	if (searched && m->stree_gen == g && m->stree_sgen == sg) {
		if (m->tree_gen != g || m->search_tree.tree != &m->tree)
			return tf_error_set(err, "a search index of another tree");
		if (search_index_check(&m->search_tree, &m->search, err))
			return -1;
	}
	if (searched && m->schart_gen == g && m->schart_sgen == sg) {
		if (m->chart_gen != g || !timeline_has(&m->timeline, m->search_chart.chart))
			return tf_error_set(err, "a search index of another chart");
		if (search_index_check(&m->search_chart, &m->search, err))
			return -1;
	}
	/* An index of the sandwich built last, if that is current, for the search. */
	for (int i = 0; i < 2; i++) {
		if (!searched || m->sandwich_gen != g || !m->sandwich_builds ||
		    m->ssw_build[i] != m->sandwich_builds || m->ssw_sgen[i] != sg)
			continue;
		if (m->search_sw[i].tree != (i ? &m->sandwich.callees : &m->sandwich.callers))
			return tf_error_set(err, "a search index of another tree");
		if (search_index_check(&m->search_sw[i], &m->search, err))
			return -1;
	}
	if (m->ssw_build[0] > m->sandwich_builds || m->ssw_build[1] > m->sandwich_builds ||
	    m->ssw_sgen[0] > sg || m->ssw_sgen[1] > sg)
		return tf_error_set(err, "a sandwich index newer than its sandwich");
	if (m->sandwich_gen == g) {
		if (sandwich_check(&m->sandwich, err))
			return -1;
		if (m->fstats_gen == g && !m->fstats_exact &&
		    (m->fstats[m->sandwich.func].total != m->sandwich.total ||
		     m->fstats[m->sandwich.func].self != m->sandwich.self))
			return tf_error_set(err, "sandwich weighs %llu, its function %llu",
					    (unsigned long long)m->sandwich.total,
					    (unsigned long long)m->fstats[m->sandwich.func].total);
	}
	/* Filtered rows can only be checked against the search they were built for. */
	/* In diff mode, the rows of the base weights they were built with. */
	if (m->rows_gen == g && m->fstats_gen == g &&
	    (!m->rows.filtered || (searched && m->rows_sgen == sg)) &&
	    (!compared ||
	     (m->rows_dgen == m->diff.dgen && m->diff.fstats_gen == g &&
	      m->diff.fstats_dgen == m->diff.dgen)) &&
	    sandwich_rows_check(&m->rows, ps, &m->funcs, m->fstats,
				compared ? m->diff.fstats : NULL,
				m->rows.filtered ? &m->search : NULL, err))
		return -1;
	if (m->thread_tab_built && m->thread_tab_time == m->time_gen &&
	    thread_table_check(&m->thread_tab, ps,
			       m->thread_tab_profile == m->lens.profile
				       ? model_profile(m)
				       : ps->profiles[m->thread_tab_profile],
			       m->lens.timed, err))
		return -1;
	if (m->inv_gen > g || m->sinv_build > m->inv_builds || m->sinv_sgen > sg)
		return tf_error_set(err, "an inverted tree newer than its generation");
	if (m->inv_builds && m->inv_gen == g && m->tree_gen == g &&
	    inverted_check(&m->inv, &m->tree, err))
		return -1;
	if (searched && m->inv_builds && m->inv_gen == g && m->sinv_build == m->inv_builds &&
	    m->sinv_sgen == sg) {
		if (m->search_inv.tree != &m->inv.tree)
			return tf_error_set(err, "a search index of another tree");
		if (search_index_check(&m->search_inv, &m->search, err))
			return -1;
	}
	return 0;
}

int
model_check_own(const struct model *m, struct tf_error *err)
{
	const struct profile_set *ps = m->ps;
	uint64_t g = m->generation;

	if (!ps || m->lens.profile >= ps->nr_profiles)
		return tf_error_set(err, "profile %zu of %zu", m->lens.profile,
				    ps ? ps->nr_profiles : 0);
	if (lens_check(&m->lens, ps, err))
		return -1;
	if (!g || m->w_gen > g || m->tree_gen > g || m->chart_gen > g || m->fstats_gen > g)
		return tf_error_set(err, "a cache is newer than generation %llu",
				    (unsigned long long)g);
	if (m->lens.threads) {
		bool all = true;

		for (uint32_t i = 0; i < ps->nr_threads; i++)
			if (!m->lens.threads[i])
				all = false;
		if (all)
			return tf_error_set(err, "a thread mask that keeps every thread");
	}
	if (m->w_gen == g) {
		uint64_t sum = 0;

		for (uint32_t i = 0; i < model_view(m)->nr_stacks; i++)
			sum += m->stack_w[i];
		if (sum != m->total)
			return tf_error_set(err, "stack weights sum to %llu, total is %llu",
					    (unsigned long long)sum, (unsigned long long)m->total);
	}
	if (m->tree_gen == g) {
		if (calltree_check(&m->tree, err))
			return -1;
		if (m->w_gen == g && m->tree.total[STACK_ROOT] != m->total)
			return tf_error_set(err, "tree total %llu, selected weight %llu",
					    (unsigned long long)m->tree.total[STACK_ROOT],
					    (unsigned long long)m->total);
	}
	if (m->chart_gen == g) {
		const struct timeline *tl = &m->timeline;
		uint64_t weight = 0;

		for (uint32_t l = 0; l <= tl->nr_lanes; l++) {
			const struct chart *c = l < tl->nr_lanes ? &tl->lanes[l] : &tl->merged;

			if (l == tl->nr_lanes && !tl->merged_built)
				break;
			if (chart_check(c, err))
				return -1;
			if (l < tl->nr_lanes)
				weight += c->weight;
		}
		/* A time range narrows the weights, not the chart's axis. */
		if (m->w_gen == g && !m->lens.timed && weight != m->total)
			return tf_error_set(err, "lanes weigh %llu, selected weight %llu",
					    (unsigned long long)weight, (unsigned long long)m->total);
	}
	if (m->funcs_built && check_marks(m, err))
		return -1;
	if (m->fstats_gen == g && !m->funcs_built)
		return tf_error_set(err, "function weights without functions");
	return check_more(m, err);
}
