#ifndef TFLAME_INVERTED_H
#define TFLAME_INVERTED_H

/*
 * The inverted (bottom-up) tree: every sample's call path read from its
 * leaf, so that row 0 holds the frames that were running (the heaviest
 * first: where the time went), row 1 their callers, and so on out to the
 * outermost frames. The Firefox Profiler's "invert call stack"; the
 * butterfly's callers side for every function at once.
 *
 * It is built from a call tree (calltree.h) and not from the samples, so
 * it shows whatever weights that tree has: a thread filter, or any lens
 * the model puts on its Left Heavy tree. A stack s of that tree with self
 * weight w stands for the samples ending at s: its path leaf first is
 * interned into a stack view of the set (profile_set_view_init()), and w
 * sits at the end of it. So each sample lands once, at one node, and the
 * root weighs what the tree's root does. Recursion is kept as it is: a;b;a
 * reads a;b;a from the leaf too. A frame at several depths of the tree is
 * one node on row 0 for all the samples it ends.
 *
 * The result is an ordinary struct calltree over the view, so layout,
 * search indexes and nav_tree() (nav.h) read it as they read Left Heavy;
 * frame ids and names are the set's. Its stack ids are the view's own, and
 * mean nothing in the set.
 *
 * Building costs the depth of every stack with self weight (one walk up
 * each, interning as it goes), then calltree_build(); nothing recurses.
 * The inverted tree borrows the set, which must outlive it and must not
 * change under it.
 */

#include <stddef.h>
#include <stdint.h>

#include "tflame/calltree.h"
#include "tflame/profile.h"

struct export_lens;
struct tf_error;

struct inverted {
	const struct profile_set *ps; /* borrowed: the set the tree was of */
	struct profile_set view;      /* owns the inverted stacks */
	struct calltree tree;         /* over view */
	/*
	 * Per stack v of view, the walk that made it: it started at stack
	 * leaf[v] of ps and was at base[v] (an ancestor of leaf[v], or
	 * itself) when it reached v. So v's path is the path from leaf[v] up
	 * to base[v], in stacks of ps: what carries a node of the inverted
	 * tree across a rewrite of the set, whose stacks map to new ones
	 * while its frame ids change. STACK_ROOT for the root.
	 */
	stack_id *leaf, *base;
	/*
	 * Per stack s of ps, the stack of view where s's self weight sits:
	 * s's path read from the leaf. STACK_ROOT for a stack with none.
	 */
	stack_id *landing;
};

/* Build inv from t (built over its set). Release with inverted_release(). */
void inverted_build(struct inverted *inv, const struct calltree *t);
void inverted_release(struct inverted *inv);

/*
 * Export the inverted tree (export.h): el, set up for inv's set and a
 * profile of it, is turned onto inv's view, whose stacks' self weights
 * are the lens's weights read from the leaf, each sample mapped to where
 * it lands (through its thread mask, as before). Its zoom, when not
 * STACK_ROOT, must be a stack of the view. A differential export has no
 * inverted form: el->base goes. ctx is scratch that must live as long as
 * el is used.
 */
struct inverted_export {
	const struct inverted *inv;
	const struct profile *p;
	/* el's sample_stack before (the lens's transforms), or NULL */
	stack_id (*lens_stack)(void *ctx, size_t i);
	void *lens_ctx;
};
void inverted_export_lens(const struct inverted *inv, struct export_lens *el,
			  struct inverted_export *ctx);

/*
 * Check inv against the tree t it was built from: the tree and its view
 * pass calltree_check() and profile_set_check(); every stack's leaf and
 * base spell its path, and every stack of t with self weight lands on a
 * stack of its frame and depth; the root weighs t's;
 * nothing sits on the root itself; each node of row 0 weighs the self
 * weight of t's stacks whose frame it is, and no other frame has such
 * weight. Returns 0, or -1 with err set.
 */
int inverted_check(const struct inverted *inv, const struct calltree *t,
		   struct tf_error *err);

#endif /* TFLAME_INVERTED_H */
