#include "config.h"

#include "tflame/inverted.h"

#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/xalloc.h"

/* Where a stack's self weight lands: the end of its path read from the leaf. */
struct landing {
	stack_id node;
	uint64_t weight;
};

void
inverted_build(struct inverted *inv, const struct calltree *t)
{
	const struct profile_set *ps = t->ps;
	struct landing *land = NULL;
	size_t nr = 0, alloc = 0;
	uint64_t *w;

	uint64_t steps = 0;

	memset(inv, 0, sizeof(*inv));
	inv->ps = ps;
	profile_set_view_init(&inv->view, ps);
	/*
	 * The walks make at most one stack a step, and reversed paths share
	 * less than paths do: room for them at once spares the table its
	 * rehashes. Deep stacks whose ends do share would make that bound
	 * a waste, so it stops at twice the tree.
	 */
	for (stack_id s = 1; s < t->nr_nodes; s++)
		if (t->self[s])
			steps += ps->stacks[s].depth;
	if (steps > 2 * (uint64_t)t->nr_nodes)
		steps = 2 * (uint64_t)t->nr_nodes;
	if (steps < STACK_BUSY / 2)
		profile_set_reserve_stacks(&inv->view, (uint32_t)steps);
	/*
	 * Parents come before children in the set, but a path read from its
	 * leaf is interned whole, its own parents first: any order will do.
	 * The landings are kept until the view's size is known.
	 */
	for (stack_id s = 1; s < t->nr_nodes; s++) {
		stack_id v = STACK_ROOT;

		if (!t->self[s])
			continue;
		for (stack_id a = s; a != STACK_ROOT; a = ps->stacks[a].parent)
			v = profile_set_stack(&inv->view, v, ps->stacks[a].frame);
		ALLOC_GROW(land, nr, alloc);
		land[nr].node = v;
		land[nr].weight = t->self[s];
		nr++;
	}
	w = xcalloc(inv->view.nr_stacks, sizeof(*w));
	for (size_t i = 0; i < nr; i++)
		w[land[i].node] += land[i].weight;
	calltree_build(&inv->tree, &inv->view, w);
	free(w);
	free(land);
}

void
inverted_release(struct inverted *inv)
{
	if (!inv->ps)
		return;
	calltree_release(&inv->tree);
	profile_set_view_release(&inv->view);
	memset(inv, 0, sizeof(*inv));
}

int
inverted_check(const struct inverted *inv, const struct calltree *t, struct tf_error *err)
{
	const struct profile_set *ps = t->ps, *v = &inv->view;
	const struct calltree *it = &inv->tree;
	uint64_t *leaf;
	uint32_t nr;
	const stack_id *top;
	int ret = 0;

	if (inv->ps != ps || it->ps != v)
		return tf_error_set(err, "inverted tree of another set");
	if (v->frames != ps->frames || v->nr_frames != ps->nr_frames)
		return tf_error_set(err, "inverted view does not share the set's frames");
	if (profile_set_check(v, err) || calltree_check(it, err))
		return -1;
	if (it->total[STACK_ROOT] != (t->nr_nodes ? t->total[STACK_ROOT] : 0))
		return tf_error_set(err, "inverted tree weighs %llu, the tree %llu",
				    (unsigned long long)it->total[STACK_ROOT],
				    (unsigned long long)t->total[STACK_ROOT]);
	if (it->self[STACK_ROOT])
		return tf_error_set(err, "inverted tree: weight on the root");
	/* Row 0: per frame, the self weight of the stacks it ends. */
	leaf = xcalloc((size_t)ps->nr_frames + 1, sizeof(*leaf));
	for (stack_id s = 1; s < t->nr_nodes; s++)
		leaf[ps->stacks[s].frame] += t->self[s];
	top = calltree_kids(it, STACK_ROOT, &nr);
	for (uint32_t i = 0; i < nr && !ret; i++) {
		frame_id f = v->stacks[top[i]].frame;

		if (it->total[top[i]] != leaf[f])
			ret = tf_error_set(err, "inverted row 0: frame %u weighs %llu, its "
					   "samples %llu", f,
					   (unsigned long long)it->total[top[i]],
					   (unsigned long long)leaf[f]);
		leaf[f] = 0;
	}
	for (frame_id f = 0; f < ps->nr_frames && !ret; f++)
		if (leaf[f])
			ret = tf_error_set(err, "inverted row 0: frame %u missing", f);
	free(leaf);
	return ret;
}
