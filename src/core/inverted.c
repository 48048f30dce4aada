#include "config.h"

#include "tflame/inverted.h"

#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/export.h"
#include "tflame/xalloc.h"

void
inverted_build(struct inverted *inv, const struct calltree *t)
{
	const struct profile_set *ps = t->ps;
	size_t alloc_walks = 0;
	uint64_t *w, steps = 0;

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
	alloc_walks = inv->view.alloc_stacks > 1 ? inv->view.alloc_stacks : 1;
	inv->leaf = xreallocarray(NULL, alloc_walks, sizeof(*inv->leaf));
	inv->base = xreallocarray(NULL, alloc_walks, sizeof(*inv->base));
	inv->leaf[STACK_ROOT] = inv->base[STACK_ROOT] = STACK_ROOT;
	inv->landing = xcalloc((size_t)ps->nr_stacks + 1, sizeof(*inv->landing));
	/*
	 * Parents come before children in the set, but a path read from its
	 * leaf is interned whole, its own parents first: any order will do.
	 */
	for (stack_id s = 1; s < t->nr_nodes; s++) {
		stack_id v = STACK_ROOT;

		if (!t->self[s])
			continue;
		for (stack_id a = s; a != STACK_ROOT; a = ps->stacks[a].parent) {
			uint32_t before = inv->view.nr_stacks;

			v = profile_set_stack(&inv->view, v, ps->stacks[a].frame);
			if (v < before)
				continue;
			/* A new stack: the walk that made it. */
			if (v >= alloc_walks) {
				alloc_walks = inv->view.alloc_stacks > v ? inv->view.alloc_stacks
									 : (size_t)v + 1;
				inv->leaf = xreallocarray(inv->leaf, alloc_walks, sizeof(*inv->leaf));
				inv->base = xreallocarray(inv->base, alloc_walks, sizeof(*inv->base));
			}
			inv->leaf[v] = s;
			inv->base[v] = a;
		}
		inv->landing[s] = v;
	}
	w = xcalloc(inv->view.nr_stacks, sizeof(*w));
	for (stack_id s = 1; s < t->nr_nodes; s++)
		w[inv->landing[s]] += t->self[s];
	calltree_build(&inv->tree, &inv->view, w);
	free(w);
}

void
inverted_release(struct inverted *inv)
{
	if (!inv->ps)
		return;
	calltree_release(&inv->tree);
	profile_set_view_release(&inv->view);
	free(inv->leaf);
	free(inv->base);
	free(inv->landing);
	memset(inv, 0, sizeof(*inv));
}

int
inverted_check(const struct inverted *inv, const struct calltree *t, struct tf_error *err)
{
	const struct profile_set *ps = t->ps, *v = &inv->view;
	const struct calltree *it = &inv->tree;
	frame_id *walk = NULL;
	size_t alloc_walk = 0;
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
	if (inv->leaf[STACK_ROOT] != STACK_ROOT || inv->base[STACK_ROOT] != STACK_ROOT)
		return tf_error_set(err, "inverted root: a walk of its own");
	/*
	 * Each stack's walk spells its path: from its leaf up to its base in
	 * ps, the frames of the view's path from row 0 down to it.
	 */
	for (stack_id s = 1; s < v->nr_stacks && !ret; s++) {
		uint32_t depth = v->stacks[s].depth, i = depth;
		stack_id a = inv->leaf[s], u = s;

		if (a == STACK_ROOT || a >= ps->nr_stacks) {
			ret = tf_error_set(err, "inverted stack %u: a walk from %u", s, a);
			break;
		}
		ALLOC_GROW_BY(walk, 0, depth, alloc_walk);
		/* The view's frames, row 0 first. */
		for (; u != STACK_ROOT && i; u = v->stacks[u].parent)
			walk[--i] = v->stacks[u].frame;
		for (i = 0; i < depth && a != STACK_ROOT; i++, a = ps->stacks[a].parent) {
			if (ps->stacks[a].frame != walk[i]) {
				ret = tf_error_set(err, "inverted stack %u: frame %u on row %u, its "
						   "walk's %u", s, walk[i], i, ps->stacks[a].frame);
				break;
			}
			if (i + 1 == depth && a != inv->base[s])
				ret = tf_error_set(err, "inverted stack %u: walk at %u, base %u", s, a,
						   inv->base[s]);
		}
		if (!ret && i < depth)
			ret = tf_error_set(err, "inverted stack %u: a walk of %u frames for %u", s, i,
					   depth);
	}
	if (ret) {
		free(walk);
		return ret;
	}
	if (it->total[STACK_ROOT] != (t->nr_nodes ? t->total[STACK_ROOT] : 0))
		return tf_error_set(err, "inverted tree weighs %llu, the tree %llu",
				    (unsigned long long)it->total[STACK_ROOT],
				    (unsigned long long)t->total[STACK_ROOT]);
	if (it->self[STACK_ROOT])
		return tf_error_set(err, "inverted tree: weight on the root");
	/* Each stack with self weight lands at the end of its path from the leaf. */
	for (stack_id s = 1; s < t->nr_nodes; s++) {
		stack_id l = inv->landing[s], a = s;
		uint32_t depth = ps->stacks[s].depth, i = depth;

		if (!t->self[s])
			continue;
		if (l == STACK_ROOT || l >= v->nr_stacks || v->stacks[l].depth != depth)
			return tf_error_set(err, "stack %u lands on inverted stack %u", s, l);
		ALLOC_GROW_BY(walk, 0, depth, alloc_walk);
		/* The view's frames from the landing up to row 0: the path from the root down. */
		for (; l != STACK_ROOT && i; l = v->stacks[l].parent)
			walk[--i] = v->stacks[l].frame;
		for (i = 0; i < depth; i++, a = ps->stacks[a].parent)
			if (walk[i] != ps->stacks[a].frame)
				break;
		if (i < depth) {
			ret = tf_error_set(err, "stack %u lands on inverted stack %u of another "
					   "path", s, inv->landing[s]);
			break;
		}
	}
	free(walk);
	if (ret)
		return ret;
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

/* export_sample_fn: sample i of the profile, at the end of its path from the leaf. */
static stack_id
inverted_sample(void *ctx, size_t i)
{
	const struct inverted_export *ie = ctx;
	/* A sample's stack in the tree's set: through the lens's transforms first. */
	stack_id s = ie->lens_stack ? ie->lens_stack(ie->lens_ctx, i) : ie->p->stack[i];

	if (s == EXPORT_DROP)
		return EXPORT_DROP;
	s = ie->inv->landing[s];
	return s == STACK_ROOT ? EXPORT_DROP : s;
}

void
inverted_export_lens(const struct inverted *inv, struct export_lens *el,
		     struct inverted_export *ctx)
{
	ctx->inv = inv;
	ctx->p = el->p;
	ctx->lens_stack = el->sample_stack;
	ctx->lens_ctx = el->ctx;
	el->ps = &inv->view;
	el->stack_w = inv->tree.self;
	el->sample_stack = inverted_sample;
	el->ctx = ctx;
	el->base = NULL;
}
