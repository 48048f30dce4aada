#ifndef TFLAME_FUNCTIONS_H
#define TFLAME_FUNCTIONS_H

/*
 * Functions and the weights every pane and report shares.
 *
 * A function is a frame name in a module: frames that differ only in
 * file:line, flags or address are one function. A process frame
 * (FRAME_PROCESS) makes a "function" of its own, never the same as a real
 * function of its name, so that tables can leave processes out. For each
 * function the core
 * reports
 *   self  = the weight of samples whose leaf frame is the function;
 *   total = the weight of samples whose stack contains the function,
 *           counted once per sample even when it recurses (a;b;a counts a
 *           once).
 *
 * Everything here works from per-stack weights (stack_weights()), so a
 * thread filter is applied once, when those are summed, and the rest is
 * O(stacks): nothing re-reads samples and nothing recurses on stack depth.
 *
 * A profile whose format records per-function figures (cProfile,
 * callgrind: struct func_figure in profile.h) has a second source, the
 * file's own numbers, read by func_stats_figures(). Its samples are then
 * a tree rebuilt from a call graph, so the figures are what the tables
 * show whenever they apply: when the lens keeps every sample. A lens that
 * drops or moves samples (a thread filter that drops a thread with
 * samples; later, transforms and time ranges) is a question the file has
 * no figures for, and the tables fall back to the tree's own.
 */

#include <stdbool.h>
#include <stdint.h>

#include "tflame/profile.h"

typedef uint32_t func_id;
/* No function: a func_id nothing has (none selected, none searched, none found). */
#define FUNC_NONE UINT32_MAX

struct func {
	str_id name;
	str_id module;
};

struct func_table {
	func_id *frame_func;  /* frame_id -> func_id */
	struct func *funcs;
	bool *process;        /* per function: its frames are FRAME_PROCESS */
	uint32_t nr_funcs;
	/*
	 * Optional (func_table_mark_outermost()): bit s is set when the
	 * function of stack s is not on the path above it, i.e. s is an
	 * outermost occurrence. It depends on the stacks only, not on any
	 * weights, so it is worth keeping across weight changes.
	 */
	uint64_t *outermost;  /* owned; NULL until marked */
	uint32_t nr_marked;   /* stacks it covers: ps->nr_stacks when marked */
	/*
	 * Optional (func_table_rank_names()): each function's place in the
	 * order of names, then modules (bytes), then ids, so that a table
	 * sorted by name, or by weights then name, compares numbers only.
	 */
	uint32_t *name_rank;  /* owned; NULL until ranked */
	/* The frames made into functions so far, and their lookup (func_table_extend()). */
	uint32_t nr_frames;
	uint32_t *slots;      /* func id + 1, 0 = empty */
	uint32_t mask;        /* slots - 1 */
	uint32_t alloc_funcs;
};

/* Group the frames of ps into functions. Release with func_table_release(). */
void func_table_init(struct func_table *ft, const struct profile_set *ps);
/*
 * The frames ps has added since ft was made (new frames come last) as
 * functions too: the old functions keep their ids, the new ones come
 * after them, as a fresh func_table_init() would number them. The name
 * ranks, if made, take the new functions in: O(F) and O(new log F)
 * string compares, where ranking again costs O(F log F). The outermost
 * marks are dropped (they were of the stacks before).
 */
void func_table_extend(struct func_table *ft, const struct profile_set *ps);
void func_table_release(struct func_table *ft);
/*
 * Mark the outermost occurrences of ps's stacks in ft (again, if stacks
 * were added since): one depth-first walk, O(stacks). Afterwards
 * func_stats_compute() is a linear pass over the stacks.
 */
void func_table_mark_outermost(struct func_table *ft, const struct profile_set *ps);

/* Rank the functions of ft by name (name_rank), once: O(F log F) string compares. */
void func_table_rank_names(struct func_table *ft, const struct profile_set *ps);
/*
 * Functions a and b of ft in the order of names, then modules (bytes of
 * ps's strings, a prefix first), then ids: < 0 when a comes first, 0
 * only for a == b.
 */
int func_cmp_names(const struct func_table *ft, const struct profile_set *ps, func_id a,
		   func_id b);
/*
 * Sort a[0 .. n) by cmp (< 0: its first function comes first; ctx passed
 * through), stably: a bottom-up merge sort, O(n log n) whatever the
 * input, with no recursion, as qsort() takes no context.
 */
void func_ids_sort(func_id *a, uint32_t n, int (*cmp)(const void *ctx, func_id a, func_id b),
		   const void *ctx);

static inline bool
func_table_outermost(const struct func_table *ft, stack_id s)
{
	return ft->outermost[s >> 6] >> (s & 63) & 1;
}
/*
 * Check that every frame maps to a function with its name, module and
 * kind (process or not), and that no two functions share all three.
 */
int func_table_check(const struct func_table *ft, const struct profile_set *ps,
		     struct tf_error *err);

/*
 * Which samples count: a thread mask (indexed by thread_id, true = keep) or
 * NULL for all threads; and with timed, only the samples whose time is in
 * [t0, t1) (stack_weights(); the charts take the threads only: their x
 * axis is time itself).
 */
struct sample_filter {
	const bool *threads;
	bool timed;
	int64_t t0, t1;
};

/*
 * Sum the weights of p's samples that pass filter (NULL: all) into out,
 * which must hold ps->nr_stacks entries and is overwritten. Returns the sum.
 */
uint64_t stack_weights(const struct profile_set *ps, const struct profile *p,
		       const struct sample_filter *filter, uint64_t *out);

struct func_stats {
	uint64_t self;
	uint64_t total;
};

/*
 * Self and total of every function (out[ft->nr_funcs], overwritten) for the
 * per-stack weights w (ps->nr_stacks entries). O(stacks) when ft's
 * outermost marks cover ps (func_table_mark_outermost()); otherwise they
 * are worked out for this call only, which costs a walk of the stack tree
 * on top.
 */
void func_stats_compute(const struct func_table *ft, const struct profile_set *ps,
			const uint64_t *w, struct func_stats *out);
/*
 * The same from per-stack weights w and their subtree sums sub (the self
 * and total of a call tree built from w, calltree.h), which spares
 * summing them again.
 */
void func_stats_compute_sums(const struct func_table *ft, const struct profile_set *ps,
			     const uint64_t *w, const uint64_t *sub, struct func_stats *out);

/*
 * The recorded figures of p (profile_add_figure()) as self and total per
 * function of ft: out[ft->nr_funcs], overwritten; a function with no
 * figure gets zeros, and the figures of several frames of one function
 * add up. Returns false, with out untouched, when p has no figures.
 * O(figures + functions).
 */
bool func_stats_figures(const struct func_table *ft, const struct profile *p,
			struct func_stats *out);

#endif /* TFLAME_FUNCTIONS_H */
