#ifndef TFLAME_MODEL_H
#define TFLAME_MODEL_H

/*
 * The model: one loaded profile set, the user's current lens on it (which
 * profile, which threads), and everything derived from them: per-stack
 * weights, the Left Heavy call tree, the Time Order chart, functions and
 * their self/total weights.
 *
 * Derived structures are caches, built on first use and rebuilt only when
 * the lens changes: every change bumps generation, and each cache remembers
 * the generation it was built for. So switching panes is free, a thread
 * filter change re-aggregates the in-memory samples once, and nothing ever
 * re-reads the file. Panes and commands hold a struct model * and their own
 * view state only.
 *
 * Pointers returned by model_*() stay valid until the next call that
 * changes the lens (model_set_*) or model_release().
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tflame/calltree.h"
#include "tflame/chart.h"
#include "tflame/functions.h"
#include "tflame/profile.h"

struct tf_error;

struct model {
	struct profile_set *ps;   /* owned */
	size_t profile;           /* index into ps->profiles */
	bool *threads;            /* per thread: shown; NULL means all; owned */
	uint64_t generation;      /* bumped by every change of the lens */

	/* caches, each valid when its *_gen equals generation */
	uint64_t *stack_w;        /* per stack: weight of the selected samples */
	uint64_t total;           /* their sum */
	uint64_t w_gen;
	struct calltree tree;
	uint64_t tree_gen;
	struct chart chart;
	uint64_t chart_gen;
	struct func_table funcs;  /* depends on ps only: built once */
	bool funcs_built;
	struct func_stats *fstats;
	uint64_t fstats_gen;
};

/* Take ownership of ps (at least one profile) and show its first profile. */
void model_init(struct model *m, struct profile_set *ps);
/* Free the caches and the profile set. */
void model_release(struct model *m);

/* Show profile index (< ps->nr_profiles; anything else is a BUG). */
void model_set_profile(struct model *m, size_t index);
/*
 * Show only the threads whose mask entry is true (mask has ps->nr_threads
 * entries and is copied), or all threads when mask is NULL. A mask that
 * keeps every thread is stored as NULL, so m->threads is NULL exactly when
 * nothing is filtered out. Setting the lens it already has changes nothing
 * and keeps the caches.
 */
void model_set_threads(struct model *m, const bool *mask);

const struct profile *model_profile(const struct model *m);
/* Weight of the selected samples. */
uint64_t model_total(struct model *m);
/* Per-stack weights of the selected samples (ps->nr_stacks entries). */
const uint64_t *model_stack_weights(struct model *m);
const struct calltree *model_tree(struct model *m);
const struct chart *model_chart(struct model *m);
const struct func_table *model_funcs(struct model *m);
/* Self and total of every function under the lens (model_funcs() order). */
const struct func_stats *model_func_stats(struct model *m);

/*
 * Check the model and every cache that is current: weights that sum to the
 * total, and calltree_check(), chart_check(), func_table_check() on the
 * tree, chart and functions, whose totals must agree. Returns 0, or -1 with
 * err set.
 */
int model_check(const struct model *m, struct tf_error *err);

#endif /* TFLAME_MODEL_H */
