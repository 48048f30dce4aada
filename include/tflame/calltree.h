#ifndef TFLAME_CALLTREE_H
#define TFLAME_CALLTREE_H

/*
 * The call tree of the Left Heavy pane: the stack trie of a profile set,
 * weighed by one query's per-stack weights (functions.h: stack_weights()),
 * with every node's children ordered heaviest first.
 *
 * Nodes are stack ids: the node of stack s stands for the call path s, its
 * parent is ps->stacks[s].parent and STACK_ROOT is the (unnamed) root. A
 * node whose total is 0 is not in this tree: it has no samples under the
 * query, and is nobody's child here.
 *
 * Every node with weight also has its place on the Left Heavy x axis:
 * [x0[n], x0[n] + total[n]), the root's children side by side from 0 and
 * each node's children heaviest first from its own left edge. Layout finds
 * the children under a range of x by binary search over x0.
 *
 * Building is O(stacks + sorting children); nothing recurses on depth.
 * The tree borrows ps, which must outlive it.
 */

#include <stdint.h>

#include "tflame/profile.h"

struct tf_error;

struct calltree {
	const struct profile_set *ps;
	uint32_t nr_nodes;     /* = ps->nr_stacks when built */
	uint64_t *self;        /* per node: weight of samples ending here */
	uint64_t *total;       /* per node: weight of its subtree */
	uint32_t *first;       /* per node: index of its first child in kids[] */
	uint32_t *nr_kids;     /* per node: children with weight */
	stack_id *kids;        /* children, grouped by parent, heaviest first */
	uint64_t *x0;          /* per node: left edge in the Left Heavy layout */
	uint32_t *height;      /* per node: rows of its subtree below it (0: a leaf) */
	stack_id *deepest;     /* per node: its child of the greatest height, 0 if none */
	uint32_t alloc_nodes, alloc_kids; /* the arrays' room, kept by rebuilds */
};

/*
 * Build t from w (ps->nr_stacks per-stack weights, as from stack_weights()).
 * Children of equal weight are ordered by name, then by stack id, so the
 * order is the same on every run. Release with calltree_release().
 */
void calltree_build(struct calltree *t, const struct profile_set *ps, const uint64_t *w);
/*
 * The same for t already built (or zeroed): when its arrays have room for
 * ps's stacks, whatever set it was of, they are reused, which spares a
 * big tree the cost of fresh memory on every change of weights (a thread
 * filter) or of stacks (a transform). Pointers into the old tree are
 * invalid afterwards; its set is not read.
 */
void calltree_rebuild(struct calltree *t, const struct profile_set *ps, const uint64_t *w);
/*
 * calltree_rebuild() in two steps: the weights (self, total, nr_kids,
 * height, deepest), final once the first returns, then the children's
 * lists and x0, which read the weights only. So another thread may read
 * the totals while the second step runs (the function weights do).
 */
void calltree_rebuild_sums(struct calltree *t, const struct profile_set *ps, const uint64_t *w);
void calltree_rebuild_order(struct calltree *t);
void calltree_release(struct calltree *t);

/* Children of n, heaviest first: kids[0 .. *nr). */
static inline const stack_id *
calltree_kids(const struct calltree *t, stack_id n, uint32_t *nr)
{
	*nr = t->nr_kids[n];
	return t->kids + t->first[n];
}

/*
 * Check the invariants: totals are self plus the children's totals, every
 * node with weight is its parent's child exactly once, children in order
 * and placed edge to edge from their parent's x0. Returns 0, or -1 with err
 * describing the first violation.
 */
int calltree_check(const struct calltree *t, struct tf_error *err);

#endif /* TFLAME_CALLTREE_H */
