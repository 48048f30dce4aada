#ifndef TFLAME_MODEL_H
#define TFLAME_MODEL_H

/*
 * The model: one loaded profile set, the user's current lens on it (which
 * profile, which threads), and everything derived from them: per-stack
 * weights, the Left Heavy call tree, the Time Order chart, functions and
 * their self/total weights, the Sandwich of a function and its table, the
 * search's matches, and the per-thread weights of the thread picker.
 *
 * Derived structures are caches, built on first use and rebuilt only when
 * the lens changes: every change bumps generation, and each cache remembers
 * the generation it was built for. So switching panes is free, a thread
 * filter change re-aggregates the in-memory samples once, and nothing ever
 * re-reads the file. Panes and commands hold a struct model * and their own
 * view state only.
 *
 * Pointers returned by model_*() stay valid until the next call that
 * changes the lens (model_set_*) or model_release(). Three caches hold one
 * answer at a time and are also replaced by a question with another
 * answer: model_sandwich() by another function, model_sandwich_rows() by
 * another order or filter, and the search caches by model_set_search().
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tflame/calltree.h"
#include "tflame/chart.h"
#include "tflame/functions.h"
#include "tflame/inverted.h"
#include "tflame/lens.h"
#include "tflame/modname.h"
#include "tflame/profile.h"
#include "tflame/sandwich.h"
#include "tflame/search.h"

struct tf_error;

/* One thread in the thread picker. */
struct thread_weight {
	thread_id thread; /* its first entry (ps_thread()): all its names count here */
	uint64_t weight;  /* of the profile's samples on it, whatever the filter */
	uint64_t samples;
};

/* One process in the thread picker: its threads are a slice of the table's. */
struct process_weight {
	int64_t pid;      /* -1 gathers the threads of no known process */
	str_id comm;      /* the main thread's last (tid = pid), else the heaviest thread's */
	uint64_t weight, samples;
	uint32_t first, nr; /* its threads: threads[first .. first + nr) */
};

/*
 * The threads of the current profile that have samples (in the time
 * range, if any), grouped by process: processes heaviest first (then by
 * pid), and within a process its threads heaviest first (then by tid).
 * Weights ignore the thread filter, so a picker shows what unticking or
 * ticking a thread would do.
 */
struct thread_table {
	struct process_weight *procs;  /* owned */
	uint32_t nr_procs;
	struct thread_weight *threads; /* owned; in procs' order */
	uint32_t nr_threads;
	uint64_t total;                /* the profile's total weight (in the range) */
};

/* What model_mark_threads() matches on. */
enum thread_key {
	THREAD_BY_TID,
	THREAD_BY_PID,
	THREAD_BY_COMM,
};

/*
 * A comparison's caches (model_diff.c): the weights of the profile the
 * shown one is compared with (model_diff_base()), under the same lens.
 * Each is valid when its gen is the model's generation and its dgen the
 * diff's (bumped by the normalisation), some also of one build of the
 * sandwich or inverted tree.
 */
struct model_diff {
	bool normalize;           /* the base scaled to the shown total */
	uint64_t dgen;            /* bumped by a change of normalize */
	size_t other_of;          /* the profile other was looked up for, +1; 0 never */
	int other;                /* index of its diff_other(), or -1 */

	/* per set stack: the base's samples the lens keeps, raw; for sel_gen */
	uint64_t *set_w;
	uint64_t set_total;
	uint64_t set_gen;
	/* per view stack: folded through the transforms and scaled */
	uint64_t *view_w;
	uint32_t nr_view_w;
	uint64_t total, raw_total; /* their sum; and before scaling */
	uint64_t w_gen, w_dgen;
	uint64_t *tree_tot;       /* per view stack: its subtree's base weight */
	uint64_t tree_gen, tree_dgen;
	struct func_stats *fstats;
	uint64_t fstats_gen, fstats_dgen;
	/* the base's own Left Heavy tree, its sandwich and inverted tree made from it */
	struct calltree tree;
	uint64_t ctree_gen, ctree_dgen;
	uint64_t *sw_tot[2];      /* per node of the model's callers, callees tree */
	uint64_t sw_build, sw_gen, sw_dgen; /* the model's sandwich_builds they are of */
	uint64_t *inv_tot;        /* per node of model_inverted()'s tree */
	uint64_t inv_build, inv_gen, inv_dgen; /* the model's inv_builds it is of */

	/* model_swap_diff(): the mask it replaced and the one it set, to swap back */
	bool swapped;
	size_t swap_from;         /* the profile swapped away from */
	bool *swap_mask, *swap_set; /* owned; NULL: no filter */
};

struct model {
	struct profile_set *ps;   /* owned */
	struct lens lens;         /* profile, threads, search, transforms */
	uint64_t generation;      /* bumped by every change of the lens */
	uint64_t sel_gen;         /* bumped by a change of the samples kept */
	uint64_t tx_gen;          /* bumped by a change of the transforms */
	uint64_t time_gen;        /* bumped by a change of the time range */

	/* lens_base()'s per-stack weights of the selected samples, for sel_gen */
	uint64_t *base_w;
	uint64_t base_total;
	uint64_t base_gen;
	/*
	 * Grouped by process: the same of the set's own stacks, and their
	 * outermost marks (set_marks), as they were when grouping began,
	 * taken back when it ends. Owned, or NULL.
	 */
	uint64_t *set_base_w;
	uint64_t set_base_total, set_base_gen;
	uint64_t *set_set_marks;
	/*
	 * Not grouped: the same of the group's stacks, as they were when
	 * grouping ended, for the group the lens keeps (lens.kept_group,
	 * whose id grp_id is), taken back when grouping again takes it.
	 * Owned, or NULL.
	 */
	uint64_t *grp_base_w;
	uint64_t grp_base_total, grp_base_gen, grp_id;
	uint64_t *grp_set_marks;
	/* the same folded through the transforms (stack_w then points here) */
	uint64_t *view_w;
	uint32_t nr_view_w;
	/*
	 * Time Order's samples under the transforms: the profile with each
	 * sample's view stack, and weight 0 for a dropped one (so that it
	 * stays a gap in time). Arrays owned; the rest borrowed.
	 */
	struct profile view_p;    /* its stack array owned */
	uint64_t *view_p_weight;  /* owned: its weights when some are dropped */
	size_t view_p_profile;
	uint64_t view_p_gen;      /* tx_gen it was made for, 0 never */
	uint64_t marks_gen;       /* tx_gen of funcs' outermost marks */
	/*
	 * lens.count_samples: the profile with each sample's weight 1 and
	 * the unit samples, which model_profile() gives instead. Its weight
	 * array owned; the rest borrowed.
	 */
	struct profile counted;
	/*
	 * The shown profile when its total is past 64 bits: a copy whose
	 * weights are scaled down (profile.h: weight_shift) so that the
	 * views' 64-bit sums hold; model_profile() gives it. Its weight
	 * array owned, the rest borrowed; weight_shift 0 and no array for a
	 * profile whose total fits 64 bits.
	 */
	struct profile wide;
	/*
	 * Grouped by process: model_profile() with the lens's stacks, made
	 * by model_samples(). Nothing owned.
	 */
	struct profile grouped;
	/*
	 * The Left Heavy tree, function weights and Sandwich rows of the
	 * lens before its last change of transforms or time range, kept so
	 * that undoing that change is instant (stash_key says which lens
	 * they are of). When they are of no use, their arrays are where the
	 * next tree and rows are built, which spares a big tree fresh memory.
	 * The group by process stashes a tree only where the stash has
	 * room for the next one (model_set_by_process()).
	 */
	struct calltree stash_tree;
	struct func_stats *stash_fstats; /* owned, or NULL */
	struct sandwich_rows stash_rows; /* with no scratch of its own */
	uint64_t stash_rows_sgen, stash_rows_dgen; /* the rows' rows_sgen, rows_dgen */
	bool stash_ok, stash_has_fstats, stash_fstats_exact, stash_has_rows;
	struct lens_key {
		uint64_t level;       /* the top transform's lens_level.id, 0 for none */
		uint64_t group;       /* the group by process's lens.group.id, 0 for none */
		uint64_t pick_gen;    /* the samples kept, but for the time range */
		bool timed;
		int64_t t0, t1;
	} stash_key;
	uint64_t stash_fstats_builds; /* funcs_builds they were of */
	uint64_t pick_gen;        /* bumped by a change of the samples kept, bar time */
	uint64_t funcs_builds;    /* counts func_table_init()s */
	/* The outermost marks of lens_base()'s stacks (lens.set_marks), or NULL. */
	uint64_t *set_marks;

	/* caches, each valid when its *_gen equals generation */
	const uint64_t *stack_w;  /* per view stack: weight of the selected samples */
	uint64_t total;           /* their sum */
	uint64_t w_gen;
	struct calltree tree;
	uint64_t tree_gen;
	struct timeline timeline; /* Time Order's lanes and merged chart */
	uint64_t chart_gen;
	bool timeline_lanes_ok;   /* its lanes are still of m->ps (set unchanged) */
	struct func_table funcs;  /* depends on ps only: built once */
	bool funcs_built;
	/* model_module_name()'s: of ps's modules when it had modnames_frames frames */
	struct module_names modnames;
	uint32_t modnames_frames;
	struct func_stats *fstats;
	uint64_t fstats_gen;
	bool fstats_exact;        /* fstats are the profile's recorded figures */
	/*
	 * A view of at least this many stacks has its function weights
	 * (and the Sandwich rows that follow them) made on a second thread
	 * while model_tree() orders the tree: MODEL_THREAD_MIN, which the
	 * tests lower to run that path on small profiles.
	 */
	uint32_t thread_min_stacks;

	/*
	 * The search is not part of the lens: changing it bumps search_gen
	 * only, so the weights and trees survive every keystroke of a
	 * search prompt. Caches that depend on both remember both.
	 */
	uint64_t search_gen;
	struct search search;        /* over frames: depends on the regex only */
	uint64_t search_built;       /* search_gen it was built for, 0 never */
	struct search_index search_tree;
	uint64_t stree_gen, stree_sgen;
	struct search_index search_chart;
	uint64_t schart_gen, schart_sgen;

	struct sandwich sandwich;    /* of one function at a time */
	uint64_t sandwich_gen;
	uint64_t sandwich_builds;    /* counts builds: which sandwich is cached */
	/* the search over the sandwich's callers [0] and callees [1] */
	struct search_index search_sw[2];
	uint64_t ssw_build[2], ssw_sgen[2]; /* sandwich_builds, search_gen it is of */
	struct sandwich_rows rows;
	uint64_t rows_gen, rows_sgen;
	bool rows_asked;             /* the table was shown: it follows the weights */

	struct thread_table thread_tab; /* depends on the profile only */
	size_t thread_tab_profile;
	uint64_t thread_tab_time; /* time_gen it was built for */
	bool thread_tab_built;

	/*
	 * Left Heavy shows the inverted tree. Not part of the lens: the
	 * tree it is built from stays, and so do the other caches.
	 */
	bool inverted;
	struct inverted inv;
	uint64_t inv_gen;
	uint64_t inv_builds;         /* counts builds: which inverted tree is cached */
	struct search_index search_inv;
	uint64_t sinv_build, sinv_sgen; /* inv_builds, search_gen it is of */

	struct model_diff diff;
	uint64_t rows_dgen;          /* diff.dgen the sandwich rows are of */
};

#define MODEL_THREAD_MIN 100000u

/* Take ownership of ps (at least one profile) and show its first profile. */
void model_init(struct model *m, struct profile_set *ps);
/* Free the caches and the profile set. */
void model_release(struct model *m);

/* Show profile index (< ps->nr_profiles; anything else is a BUG). */
void model_set_profile(struct model *m, size_t index);
/*
 * Show only the threads whose mask entry is true (mask has ps->nr_threads
 * entries and is copied), or all threads when mask is NULL. A thread's
 * entry that is not its first (a later name: ps_thread()) takes its
 * first's tick, so one tick keeps or drops a tid that exec'd whole. A mask that
 * keeps every thread is stored as NULL, so m->lens.threads is NULL exactly when
 * nothing is filtered out. Setting the lens it already has changes nothing
 * and keeps the caches.
 */
void model_set_threads(struct model *m, const bool *mask);

/*
 * Count only the samples whose time is in [t0, t1) (ns, the profile's
 * clock; lens_parse_time() reads --time's text), or all of them when
 * timed is false: Left Heavy, Sandwich, the function tables, the search's
 * weights and the thread picker's follow; Time Order keeps its whole
 * axis, the range being a part of it.
 */
void model_set_time(struct model *m, bool timed, int64_t t0, int64_t t1);

/*
 * A generation of what Time Order's chart shows: bumped by every change of
 * the lens but the time range's (model_set_time() bumps generation and
 * time_gen once each), which its whole axis shows a part of, so that a
 * view of it keeps its zoom when r counts the time on screen.
 */
static inline uint64_t
model_chart_generation(const struct model *m)
{
	return m->generation - m->time_gen;
}

/*
 * Weigh every sample 1 (its unit then samples) rather than by its weight
 * (a perf event's period), or back: model_profile() is then a copy of
 * the profile so weighed, and every pane and count follows. Returns
 * false, changing nothing, for a profile model_can_count_samples() says
 * no to.
 */
bool model_set_count_samples(struct model *m, bool on);
/*
 * Whether counting p's samples means something new: not when its weights
 * are its samples' lengths in time (spans) or counts already, nor when
 * its file recorded no samples (profile.h's no_samples).
 */
bool model_can_count_samples(const struct profile *p);

/*
 * m->ps was rewritten in place (profile_set_swap_tables(): symbols came):
 * its frames and stacks are new, while its samples, threads, profiles and
 * strings keep their meaning. Every cache goes; the lens stays (profile,
 * thread filter, search regex), but a search for one function is
 * dropped, its id meaning nothing now: find it again with
 * model_func_find() and model_set_search_func().
 */
void model_set_changed(struct model *m);

/*
 * Transforms (lens.h): apply kind with arg on top of the others, remove
 * the last one (undo), apply again the last one removed (redo). Each
 * changes the lens: every tree, chart and table follows. push returns
 * 0, or -1 with err set for a bad regex or path (nothing changes); pop
 * and redo return false when there is nothing to undo or redo.
 */
int model_push_transform(struct model *m, enum lens_kind kind, const char *arg,
			 struct tf_error *err);
bool model_pop_transform(struct model *m);
bool model_redo_transform(struct model *m);
/*
 * Group by process, or stop (lens_set_by_process()): every stack under
 * its process frame, below the transforms, which are built again. A
 * toggle of the lens, not a transform: undo does not pop it. What was
 * built over the set's own stacks (the transforms' views, the weights,
 * and as for any change the tree and function weights of the lens
 * before) is kept while grouped, so that stopping costs little unless
 * the lens changed meanwhile. Returns false when the lens already was so.
 */
bool model_set_by_process(struct model *m, bool on);
/*
 * Start making the group by process on a thread of its own
 * (lens_prepare_group()), for a P to come: the explorer does it once
 * the first screen is out and the symbols are in. The set gains its
 * process frames now, with no cache lost. False when grouped, in a
 * comparison, or when a group is kept or prepared already. Before
 * m->ps changes by other means than the model's calls (the symbols'
 * profile_set_swap_tables()), lens_prepare_wait(&m->lens).
 */
bool model_prepare_group(struct model *m);
/*
 * Make the transforms, the group by process and the time range m->ps's own (lens_bake()), for
 * collapse: the set then holds only the samples they keep, on their
 * stacks, and the lens none of them. Every cache goes.
 */
void model_bake_lens(struct model *m);

/*
 * The stacks under the transforms (lens_view()): the call tree, the
 * charts and the sandwich are over them, and share m->ps's frames and
 * strings. m->ps itself when there is no transform. Valid until the
 * transforms change.
 */
const struct profile_set *model_view(const struct model *m);

/*
 * Set the lens as spec says (lens.h): the event, the thread filter, the
 * search, then the transforms of spec's lens file and of its list, in
 * that order. Returns 0, or -1 with err saying what was wrong, text
 * escaped: "PATH: no event named x" (path is the profile's), a bad
 * regex, "LENSFILE:LINE: unknown transform ...". The lens may then be
 * partly set.
 */
/*
 * What of spec can be checked before a profile is loaded, so that a
 * usage error does not wait for the load: the regexes of --search and
 * --comm, the --time text (lens_check_time()) and each --transform's
 * KIND:ARG form. Returns 0, or -1 with err as model_apply_spec() would
 * set it.
 */
int model_check_spec(const struct lens_spec *spec, struct tf_error *err);
int model_apply_spec(struct model *m, const struct lens_spec *spec, const char *path,
		     struct tf_error *err);

/*
 * The profile shown, weighed as model_set_count_samples() says. When its
 * total is past 64 bits (and samples are not counted), a copy with its
 * weights scaled down by 2^weight_shift, which every view aggregates and
 * whose profile_format_*() print the amounts back in the input's units,
 * rounded to what the scaled sums know; m->ps's own profile keeps the
 * exact weights, for collapse and export.
 */
const struct profile *model_profile(const struct model *m);
/* The samples the lens keeps (threads and time range), for stack_weights() and the like. */
struct sample_filter model_filter(const struct model *m);
struct export_lens;
/*
 * Fill el's lens (export.h) from m's: the view's stacks and weights, the
 * thread mask, and a sample_stack that maps each sample through the
 * transforms and drops those out of the time range. The zoom, title and
 * the rest are the caller's. Valid while the lens stays.
 */
void model_export_lens(struct model *m, struct export_lens *el);

/* Weight of the selected samples. */
uint64_t model_total(struct model *m);
/* Per-stack weights of the selected samples (ps->nr_stacks entries). */
const uint64_t *model_stack_weights(struct model *m);
const struct calltree *model_tree(struct model *m);
/* Time Order: the lanes of the selected threads on their time axis. */
const struct timeline *model_timeline(struct model *m);
/* Time Order: the merged chart of the selection (timeline_merged()). */
const struct chart *model_chart(struct model *m);
const struct func_table *model_funcs(struct model *m);
/*
 * What to show for module (a str_id of the set) where room is short: its
 * file name, or the shortest tail of its path that tells it from the
 * set's other modules of that file name (modname.h). Worked out once per
 * set, again when it gains frames; the pointer is valid until then.
 */
const char *model_module_name(struct model *m, str_id module);
/*
 * The function called name in module (str_ids of m->ps), or FUNC_NONE
 * when there is none. O(functions): for a rare question, such as finding
 * a function again after model_set_changed().
 */
func_id model_func_find(struct model *m, str_id name, str_id module);
/*
 * Self and total of every function under the lens (model_funcs() order):
 * the profile's recorded figures when it has them and the lens keeps
 * every sample (model_func_stats_exact()), else counted from the samples.
 */
const struct func_stats *model_func_stats(struct model *m);
/*
 * Whether model_func_stats() are the figures the file recorded (exact)
 * rather than counted from the samples: false for formats that record
 * none, and under a lens that drops samples.
 */
bool model_func_stats_exact(struct model *m);
/*
 * Whether the current profile's samples are a tree rebuilt from a call
 * graph (its format records figures, see struct func_figure), so that
 * trees and charts are an approximation and model_func_stats_exact()
 * tells where the exact numbers are.
 */
bool model_tree_rebuilt(const struct model *m);

/*
 * Search: show the frames re matches in every pane (the model takes
 * ownership of re and frees it on the next change or model_release()), or
 * clear the search with NULL. This does not change the lens: the weights,
 * trees and charts are kept.
 */
void model_set_search(struct model *m, struct search_re *re);
/* The current regex, or NULL; owned by the model. */
struct search_re *model_search_re(const struct model *m);

/*
 * Search for one function instead of a regex: every frame of func (<
 * model_funcs()->nr_funcs), as search_init_func() marks them, which is
 * how a function chosen in one pane is marked in the others. It replaces
 * a regex (model_search_re() is then NULL) and is replaced by
 * model_set_search(); model_search() and the indexes answer for it as for
 * a regex. FUNC_NONE clears it.
 */
void model_set_search_func(struct model *m, func_id func);
/* The function set by model_set_search_func(), or FUNC_NONE. */
func_id model_search_func(const struct model *m);
/*
 * The frames and functions the search (a regex or a function) matches, or
 * NULL when there is none.
 */
const struct search *model_search(struct model *m);
/*
 * The search over model_tree() or model_chart(): matched weight of any
 * x-range (search_index_matched()) and next/previous match. NULL when
 * there is no search.
 */
const struct search_index *model_search_tree(struct model *m);
const struct search_index *model_search_chart(struct model *m);
/*
 * The search over c, which is model_chart() or one of model_timeline()'s
 * lanes (anything else is a BUG), as model_search_chart() is over the
 * merged chart. One chart's index is cached at a time: asking for
 * another lane rebuilds it. NULL when there is no search.
 */
const struct search_index *model_search_lane(struct model *m, const struct chart *c);
/*
 * The weight the search matches under the lens, counted once per sample:
 * search_index_matched() over the whole Left Heavy tree, except that a
 * search matching one function of a profile with exact figures
 * (model_func_stats_exact()) answers with that function's recorded
 * total, which the rebuilt tree only approximates. 0 with no search.
 */
uint64_t model_search_matched(struct model *m);

/*
 * The Sandwich of func (< model_funcs()->nr_funcs) under the lens: its
 * callers and callees trees. One function is cached at a time; asking for
 * another rebuilds it.
 */
const struct sandwich *model_sandwich(struct model *m, func_id func);
/* Whether model_sandwich(m, func) is cached, so answers without building. */
bool model_sandwich_cached(const struct model *m, func_id func);
/*
 * The search over the callers tree (callees false) or the callees tree of
 * model_sandwich(m, func), as model_search_tree() is over the Left Heavy
 * tree: matched weight and next/previous match. NULL when there is no
 * search. Valid while that sandwich is the one cached.
 */
const struct search_index *model_search_sandwich(struct model *m, func_id func, bool callees);
/*
 * The rows of the Sandwich table in the order asked for; with filter set
 * and a search current, only the functions it matches. In diff mode a
 * function with weight on either side has a row, and the delta orders
 * compare with model_base_func_stats(). Once asked for (outside diff
 * mode), the table follows the lens: model_func_stats() sorts it with
 * new weights, in the order and with the filter asked last, so that a
 * change of the lens pays for it and the next redraw finds it built;
 * undoing a change gives back the rows of the lens before, as it gives
 * back its tree.
 */
const struct sandwich_rows *model_sandwich_rows(struct model *m, enum sandwich_sort by,
						bool reverse, bool filter);
/*
 * For model_sandwich_rows() (model_diff.c): sort the rows of the current
 * function weights by by, filtered by s if not NULL, with base's figures
 * (NULL outside diff mode), and mark them as of this generation.
 */
void model_rows_build(struct model *m, enum sandwich_sort by, bool reverse,
		      const struct search *s, const struct func_stats *base);

/*
 * Whether Left Heavy (and dump, report) show the inverted tree: a view
 * of the lens, not a change of it, so no cache goes.
 */
void model_set_inverted(struct model *m, bool inverted);
/*
 * The inverted tree (inverted.h) of model_tree(). Built on first use for
 * the current lens; m->inv_builds counts the builds, so that a view can
 * tell another build (whose stack ids mean other paths) from the same.
 */
const struct inverted *model_inverted(struct model *m);
/* Whether model_inverted() is cached, so answers without building. */
bool model_inverted_cached(const struct model *m);
/* The search over model_inverted()'s tree, as model_search_tree(); NULL with no search. */
const struct search_index *model_search_inverted(struct model *m);

/* The thread picker's table for the current profile. */
const struct thread_table *model_thread_weights(struct model *m);
/*
 * Per thread of the set (ps->nr_threads entries of out, overwritten; their
 * thread field unset; a thread's names all count at its first entry,
 * ps_thread(), the others stay 0): the weight and number of the samples the whole lens
 * keeps, the thread filter, the time range and the transforms (a sample
 * whose stack they drop or empty counts nowhere), so that the weights add
 * up to model_total(). Returns how many samples are kept.
 */
size_t model_kept_thread_weights(struct model *m, struct thread_weight *out);
/*
 * The thread picker's sparklines: for each thread of
 * model_thread_weights(), in its order, the share of each of cols equal
 * columns of the profile's time range that the thread's samples cover,
 * from 0 to 1, into out[nr_threads * cols]. A sample lasts as in its
 * Time Order lane: a span its length, an instant until the thread's next
 * sample, unless that is more than three periods later
 * (chart_axis_period()), then one period. Whatever the thread filter, so
 * that unticked threads show too. O(samples + threads x cols). Returns
 * false, writing nothing, when the profile has no times (or cols is 0).
 */
bool model_thread_activity(struct model *m, uint32_t cols, float *out);
/*
 * Set mask[t] (ps->nr_threads entries; others are left alone) for every
 * entry of every thread whose tid or pid is id, or one of whose names
 * (comms) re matches (by THREAD_BY_COMM, where id is unused): a tid that
 * exec'd is one thread, whichever name matched. Returns how many threads
 * matched (a thread once, whatever its names),
 * so that the caller can say "no thread 1234". Pass the mask to
 * model_set_threads().
 */
uint32_t model_mark_threads(const struct model *m, enum thread_key by, int64_t id,
			    struct search_re *re, bool *mask);

/*
 * Make a thread mask chosen among the current profile's threads (the
 * picker's) hold across profiles: every thread with no sample in this
 * profile takes the tick of the same thread here (the same known pid and
 * tid whatever its names; of unknown tid, the same pid and comm), else
 * no tick, so that a filter
 * by thread carries over to the other events, and a thread that only the
 * other events have is not shown unasked. When every thread of the
 * profile is ticked, every thread is: no filter. Returns how many threads
 * outside the profile were ticked by the carry.
 */
uint32_t model_carry_threads(struct model *m, bool *mask);

/* ------------------------------------------------------------ comparing */

/*
 * Diff mode (diff.h): a set made by diff_join(), or a differential folded
 * file, holds the profiles of both sides, and the one shown is compared
 * with its counterpart, diff_other(). Nothing of the shown side changes:
 * the functions below give the counterpart's ("the base's") weights under
 * the same lens, on the shown side's stacks, functions and trees:
 *  - the thread filter by comm: a base thread is kept when a kept thread
 *    of the shown profile (one with samples) has its comm; no filter keeps
 *    all;
 *  - the time range by offset: the same offsets from each profile's
 *    first sample, where both have times (else the base keeps them all);
 *  - the transforms: the base's stacks are the set's, mapped as the
 *    shown one's;
 *  - count_samples: each base sample weighs 1 too;
 *  - in the shown profile's decimals (diff_same_decimals()).
 * Normalised, each view stack's base weight is scaled to the shown total
 * (diff_scale(w, base total, shown total)), as difffolded.pl -n scales
 * each line.
 *
 * Every answer is NULL outside diff mode, and a pointer valid as the
 * model's own caches are (until the lens changes), and also until the
 * normalisation changes. The base arrays are built on first use: one pass
 * over the base's samples when the selection changes, O(stacks) else.
 */

/* The profile the shown one is compared with, or NULL: not in diff mode. */
const struct profile *model_diff_base(struct model *m);
/* Scale the base to the shown profile's total under the lens, or not. */
void model_set_diff_normalize(struct model *m, bool on);
bool model_diff_normalized(const struct model *m);
/*
 * Per stack of model_view(): the base's weight there; *total (if not
 * NULL) gets their sum.
 */
const uint64_t *model_base_stack_weights(struct model *m, uint64_t *total);
/*
 * Per node of model_tree() (a stack of model_view()): the base weight of
 * its subtree. A stack with no weight in the shown profile is in no tree,
 * but its base weight counts in its ancestors'.
 */
const uint64_t *model_base_tree_totals(struct model *m);
/* Per function of model_funcs(): the base's self and total. */
const struct func_stats *model_base_func_stats(struct model *m);
/*
 * Per node of model_sandwich(m, func)'s callers tree (callees false) or
 * callees tree: the base weight of the node's subtree, the base's own
 * sandwich of func matched to it by path (the same frame under the
 * matched parent). Builds model_sandwich(m, func) if it is not cached.
 */
const uint64_t *model_base_sandwich(struct model *m, func_id func, bool callees);
/* The same per node of model_inverted()'s tree (which it builds if need be). */
const uint64_t *model_base_inverted_totals(struct model *m);
/*
 * Show the base profile instead; its counterpart is then the one shown
 * before. The thread filter is carried by comm (as the base's weights
 * read it), the time range by offset; transforms, search, normalisation
 * and count_samples (where the base can count) stay. Swapping back right
 * away gives back the thread mask as it was. Returns false, changing
 * nothing, when not in diff mode.
 */
bool model_swap_diff(struct model *m);
/*
 * Check the model and every cache that is current: weights that sum to the
 * total, and calltree_check(), chart_check(), func_table_check() on the
 * tree, chart and functions, whose totals must agree; search_check(),
 * search_index_check(), sandwich_check(), sandwich_rows_check(),
 * inverted_check() and the thread table's order and sums; in diff mode the
 * base's: weights that sum to its total, tree totals that are the node's
 * weight plus its children's, functions within the total, a sandwich
 * whose roots weigh its function's total. Returns 0, or -1 with err set.
 */
int model_check(const struct model *m, struct tf_error *err);
/*
 * For model_check() (model_diff.c): the checks of model.c's own caches,
 * all but the comparison's.
 */
int model_check_own(const struct model *m, struct tf_error *err);

#endif /* TFLAME_MODEL_H */
