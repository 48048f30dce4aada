#ifndef TFLAME_SANDWICH_H
#define TFLAME_SANDWICH_H

/*
 * Sandwich: one function F seen from both sides, plus the table of all
 * functions it is chosen from.
 *
 *  - The callers tree: for every sample containing F, the path from the
 *    root to the *outermost* F, reversed (F on row 0, its caller on row 1,
 *    ... down to the sample's outermost frame) and merged into an inverted
 *    tree.
 *  - The callees tree: the part of every sample below its outermost F,
 *    with F on row 0, merged.
 *
 * Each sample that contains F adds its weight exactly once to each tree,
 * however often F recurses on its stack, directly (a;a;a) or not (a;b;a):
 * both roots weigh F's total (functions.h), and F appears on row 0 only in
 * the callers tree. In the callees tree a recursive F shows again further
 * down, where it was called from inside itself.
 *
 * Both trees are ordinary struct calltree values, so layout_tree(),
 * calltree_node_range() and the details code take them unchanged. Their
 * nodes are stack ids of a private set per tree, a stack view of the
 * profile set (profile_set_view_init()): frame ids, names and threads are
 * the profile set's own, only the stacks are the sandwich's. So t->ps of
 * either tree answers ps_frame(), ps_get() and ft->frame_func[] as the
 * main tree's does, and a struct search built for the profile set
 * highlights them too.
 *
 * F is a function, which may be several frames (the same name and module
 * at several lines or addresses). Row 0 of both trees is one node, the
 * frame sw->top, F's lowest frame id; frames below row 0 are kept as they
 * are, as in Left Heavy.
 *
 * Ownership: a struct sandwich owns its trees and their stack views and
 * borrows ps and ft, which must outlive it and must not change under it.
 * Building is one pass over the stacks to find F's outermost occurrences
 * (with ft's outermost marks, functions.h), then proportional to the two
 * trees it builds; nothing recurses.
 */

#include <stdbool.h>
#include <stdint.h>

#include "tflame/calltree.h"
#include "tflame/functions.h"
#include "tflame/profile.h"

struct search;
struct tf_error;

struct sandwich {
	const struct profile_set *ps;  /* borrowed */
	const struct func_table *ft;   /* borrowed */
	func_id func;                  /* F */
	frame_id top;                  /* the frame on row 0, FRAME_NONE if F has none */
	uint64_t self, total;          /* F's, under the weights it was built from */
	struct profile_set callers_ps; /* stack view owning the callers' stacks */
	struct profile_set callees_ps; /* stack view owning the callees' stacks */
	struct calltree callers;       /* over callers_ps: F, then its callers */
	struct calltree callees;       /* over callees_ps: F, then its callees */
};

/*
 * Build the sandwich of func (< ft->nr_funcs, else a BUG) under the lens
 * whose Left Heavy tree is t (calltree_build() over ft's set): its self
 * and total weights are what the sandwich counts, and its children lists
 * lead to the weighted stacks, so t is read during the call only. When ft
 * has no outermost marks for every stack, they are worked out for this
 * call (a walk of the whole stack tree). A function with no weight gets
 * two empty trees. Release with sandwich_release().
 */
void sandwich_build(struct sandwich *sw, const struct calltree *t,
		    const struct func_table *ft, func_id func);
void sandwich_release(struct sandwich *sw);

/*
 * Check: both trees pass calltree_check() and their views
 * profile_set_check(); both roots weigh sw->total; row 0 is the one node
 * of sw->top; no caller below row 0 is F; the callees' top node holds F's
 * self weight. Returns 0, or -1 with err set.
 */
int sandwich_check(const struct sandwich *sw, struct tf_error *err);

/* ------------------------------------------------------------ the table */

enum sandwich_sort {
	SANDWICH_BY_TOTAL, /* total, then self, heaviest first; then by name */
	SANDWICH_BY_SELF,  /* self, then total, heaviest first; then by name */
	SANDWICH_BY_NAME,  /* name, then module, in byte order */
	/*
	 * In a comparison: the change of total (of self) against the base,
	 * signed, the most grown first and the most shrunk last; then the
	 * other delta, then by name. Without a base, the change is the
	 * weight itself.
	 */
	SANDWICH_BY_DELTA_TOTAL,
	SANDWICH_BY_DELTA_SELF,
};

/*
 * The rows of the Sandwich table: the functions with weight under the
 * lens, in the chosen order (reversed when reverse is set), keeping only
 * the functions match marks when match is not NULL (a search filters the
 * rows). Processes (func_table's process) are no functions and get no
 * row. Ties end on the function id, so the order is total. Self and
 * total come from func_stats (functions.h).
 */
struct sandwich_rows {
	func_id *rows;       /* owned */
	uint32_t nr, alloc;
	enum sandwich_sort by;
	bool reverse;
	bool filtered;       /* built with a match filter */
	void *scratch;       /* owned: the sort's keys, kept for the next build */
	size_t scratch_size;
};

void sandwich_rows_init(struct sandwich_rows *r);
/*
 * Fill r (replacing its rows) from st (ft->nr_funcs entries, as from
 * func_stats_compute()). base, when not NULL, is the same for the
 * profile compared with (model_base_func_stats()): a function with
 * weight on either side then has a row, one gone from st with 0 there,
 * and the delta orders read it. O(functions log functions).
 */
void sandwich_rows_build(struct sandwich_rows *r, const struct profile_set *ps,
			 const struct func_table *ft, const struct func_stats *st,
			 const struct func_stats *base, enum sandwich_sort by, bool reverse,
			 const struct search *match);
void sandwich_rows_release(struct sandwich_rows *r);
/* The row of func in r, or UINT32_MAX: O(rows). */
uint32_t sandwich_rows_find(const struct sandwich_rows *r, func_id func);

/*
 * Check r against the same arguments it was built from: every function
 * with weight (and matching) exactly once, in order. Returns 0, or -1 with
 * err set.
 */
int sandwich_rows_check(const struct sandwich_rows *r, const struct profile_set *ps,
			const struct func_table *ft, const struct func_stats *st,
			const struct func_stats *base, const struct search *match,
			struct tf_error *err);

#endif /* TFLAME_SANDWICH_H */
