#include "config.h"

#include "tflame/model.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/xalloc.h"

/*
 * Generations start at 1, so a cache whose *_gen is still 0 has never been
 * built; a change of the lens bumps the generation and every cache goes
 * stale at once, to be rebuilt by the next model_*() call that wants it.
 * The structs of stale caches are kept, released only when rebuilt, so a
 * pane that asks for nothing costs nothing.
 */

void
model_init(struct model *m, struct profile_set *ps)
{
	assert(ps->nr_profiles > 0);
	memset(m, 0, sizeof(*m));
	m->ps = ps;
	m->generation = 1;
}

void
model_release(struct model *m)
{
	free(m->threads);
	free(m->stack_w);
	calltree_release(&m->tree);
	chart_release(&m->chart);
	func_table_release(&m->funcs);
	free(m->fstats);
	profile_set_free(m->ps);
	memset(m, 0, sizeof(*m));
}

void
model_set_profile(struct model *m, size_t index)
{
	if (index >= m->ps->nr_profiles)
		BUG("profile %zu of %zu", index, m->ps->nr_profiles);
	if (index == m->profile)
		return;
	m->profile = index;
	m->generation++;
}

void
model_set_threads(struct model *m, const bool *mask)
{
	uint32_t n = m->ps->nr_threads;
	bool all = true;

	/* A mask that keeps every thread is no filter: the fast path. */
	for (uint32_t i = 0; mask && i < n; i++)
		if (!mask[i])
			all = false;
	if (all)
		mask = NULL;
	if (!mask && !m->threads)
		return;
	if (mask && m->threads && !memcmp(mask, m->threads, sizeof(*mask) * n))
		return;
	free(m->threads);
	m->threads = mask ? xmemdup(mask, sizeof(*mask) * n) : NULL;
	m->generation++;
}

const struct profile *
model_profile(const struct model *m)
{
	return m->ps->profiles[m->profile];
}

const uint64_t *
model_stack_weights(struct model *m)
{
	struct sample_filter filter = { m->threads };

	if (m->w_gen == m->generation)
		return m->stack_w;
	/* The set never changes under a model, nor does its number of stacks. */
	if (!m->stack_w)
		m->stack_w = xmalloc(sizeof(*m->stack_w) * m->ps->nr_stacks);
	m->total = stack_weights(m->ps, model_profile(m), &filter, m->stack_w);
	m->w_gen = m->generation;
	return m->stack_w;
}

uint64_t
model_total(struct model *m)
{
	model_stack_weights(m);
	return m->total;
}

const struct calltree *
model_tree(struct model *m)
{
	const uint64_t *w;

	if (m->tree_gen == m->generation)
		return &m->tree;
	w = model_stack_weights(m);
	calltree_release(&m->tree);
	calltree_build(&m->tree, m->ps, w);
	m->tree_gen = m->generation;
	return &m->tree;
}

const struct chart *
model_chart(struct model *m)
{
	struct sample_filter filter = { m->threads };

	if (m->chart_gen == m->generation)
		return &m->chart;
	chart_release(&m->chart);
	chart_build(&m->chart, m->ps, model_profile(m), m->threads ? &filter : NULL);
	m->chart_gen = m->generation;
	return &m->chart;
}

const struct func_table *
model_funcs(struct model *m)
{
	if (!m->funcs_built) {
		func_table_init(&m->funcs, m->ps);
		m->funcs_built = true;
	}
	return &m->funcs;
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
	func_stats_compute(ft, m->ps, w, m->fstats);
	m->fstats_gen = m->generation;
	return m->fstats;
}

int
model_check(const struct model *m, struct tf_error *err)
{
	const struct profile_set *ps = m->ps;
	uint64_t g = m->generation;

	if (!ps || m->profile >= ps->nr_profiles)
		return tf_error_set(err, "profile %zu of %zu", m->profile,
				    ps ? ps->nr_profiles : 0);
	if (!g || m->w_gen > g || m->tree_gen > g || m->chart_gen > g || m->fstats_gen > g)
		return tf_error_set(err, "a cache is newer than generation %llu",
				    (unsigned long long)g);
	if (m->threads) {
		bool all = true;

		for (uint32_t i = 0; i < ps->nr_threads; i++)
			if (!m->threads[i])
				all = false;
		if (all)
			return tf_error_set(err, "a thread mask that keeps every thread");
	}
	if (m->w_gen == g) {
		uint64_t sum = 0;

		for (uint32_t i = 0; i < ps->nr_stacks; i++)
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
		if (chart_check(&m->chart, err))
			return -1;
		if (m->w_gen == g && m->chart.total != m->total)
			return tf_error_set(err, "chart total %llu, selected weight %llu",
					    (unsigned long long)m->chart.total,
					    (unsigned long long)m->total);
	}
	if (m->funcs_built && func_table_check(&m->funcs, ps, err))
		return -1;
	if (m->fstats_gen == g && !m->funcs_built)
		return tf_error_set(err, "function weights without functions");
	return 0;
}
