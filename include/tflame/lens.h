#ifndef TFLAME_LENS_H
#define TFLAME_LENS_H

/*
 * The lens: the user's current view of a profile set, one value that the
 * model (model.h) derives every cache from, so that every pane and
 * command sees the same thing:
 *  - which profile (event) of the set, and which threads;
 *  - the search (a regex, or one function), which marks frames and
 *    changes no weight;
 *  - a stack of transforms that reshape the stacks, with the Firefox
 *    Profiler's semantics: focus, merge, drop, collapse.
 *
 * A transform maps each stack of its input (the set's own stacks, or the
 * view of the transform below it) to a stack of a view of its own, or
 * drops it. The map is built in one pass in stack-id order, parents
 * before children, so every stack's parent is mapped before it and
 * nothing recurses. Each transform keeps its view (a struct profile_set
 * view: the set's frames and strings, stacks of its own) and the
 * composed map from the set's stacks, so popping one costs nothing and
 * pushing one costs one pass over the stacks below it. Weights fold
 * through the composed map: a view stack weighs what the set's stacks
 * mapped to it weigh, and a sample whose stack maps to LENS_DROPPED or
 * to STACK_ROOT (every frame merged away) counts nowhere.
 *
 * Each kind of transform is a struct lens_kind_ops: a new kind is a new
 * implementation in lens.c and a line in the kinds table, nothing in the
 * panes.
 *
 * Below the transforms, the lens may group by process: every sample's
 * stack goes under a FRAME_PROCESS frame naming its thread's process,
 * "comm-PID" as `collapse --pid` names its roots (a perf profile's own
 * process frame, "comm", is replaced, not doubled). Which process is a
 * sample's, not a stack's, so this is no map of stacks: the lens keeps a
 * set of its own (group, a view of ps whose stacks are (process, stack))
 * and each profile's samples' stacks in it, and the transforms take
 * group's stacks as their input instead of ps's. lens_base() is that
 * input, lens_sample_stacks() the samples' stacks in it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tflame/profile.h"

struct search_re;
struct strbuf;
struct tf_error;

/* A stack a transform removes with its samples (and its whole subtree). */
#define LENS_DROPPED ((stack_id)UINT32_MAX)

enum lens_kind {
	LENS_FOCUS_SUBTREE,
	LENS_FOCUS_FUNCTION,
	LENS_FOCUS_FUNCTION_INVERTED,
	LENS_MERGE_FUNCTION,
	LENS_MERGE_CALL_NODE,
	LENS_DROP_FUNCTION,
	LENS_COLLAPSE_RECURSION,
	LENS_COLLAPSE_DIRECT_RECURSION,
	LENS_COLLAPSE_SUBTREE,
	LENS_COLLAPSE_MODULE,
	LENS_NR_KINDS
};

/* What a transform's argument is. */
enum lens_arg {
	LENS_ARG_FUNCTION, /* a regex over function names */
	LENS_ARG_MODULE,   /* a regex over module names */
	LENS_ARG_PATH,     /* a call path: function names, outermost first */
};

struct lens_pass;
struct lens_prep;

/* One kind of transform. */
struct lens_kind_ops {
	const char *name;   /* as --transform and lens files spell it */
	const char *crumb;  /* the breadcrumb's verb: "merge", "focus" */
	const char *help;   /* one line for --help and the help screen */
	enum lens_arg arg;
	/*
	 * The view stack of input stack s, whose parent's view stack is
	 * parent_out (never LENS_DROPPED: the pass drops a dropped stack's
	 * children itself): a stack of the pass's output, STACK_ROOT for
	 * an empty stack (its samples count nowhere, its children hang at
	 * the root), or LENS_DROPPED. Called once per stack, parents first.
	 */
	stack_id (*map)(struct lens_pass *lp, stack_id s, stack_id parent_out);
};

/* The kind called name ("merge-function"), or NULL. */
const struct lens_kind_ops *lens_kind_find(const char *name, enum lens_kind *kind);
const struct lens_kind_ops *lens_kind_ops(enum lens_kind kind);

/* A transform as the user gave it. */
struct lens_transform {
	enum lens_kind kind;
	char *arg;  /* owned: the regex, or the path with ';' between names */
};

/* One transform applied: its view and the map to it. */
struct lens_level {
	struct lens_transform t;
	struct search_re *re;      /* owned; NULL for a path */
	struct profile_set view;   /* the stacks after this transform */
	stack_id *map;             /* per stack of the set: its stack in view */
	uint64_t kept_stacks;      /* stacks of the set that map to a stack */
	/*
	 * Bit o set when view stack o is an outermost occurrence of its
	 * function (functions.h: func_table_mark_outermost()), marked in
	 * the pass from the marks of its input; owned, NULL when the input
	 * had none (lens.set_marks unset) or they would cost too much.
	 */
	uint64_t *outermost;
	uint64_t id;               /* which build of a level this is: never 0 */
};

/* A group by process of a set's stacks (lens_set_by_process()). */
struct lens_group {
	struct profile_set set;    /* a view of the set's: each stack under its process */
	stack_id **stack;          /* per profile of the set, per sample, its
				    * stack in set; owned */
	size_t nr_stack;
	uint64_t id;               /* which build this is (counted with the
				    * levels'): never 0 */
	uint64_t *marks;           /* set's outermost marks, made from
				    * lens.set_marks; owned, or NULL */
	/*
	 * Made ahead with the group (lens_prepare_group()): the per-stack
	 * weights of every sample of profile weights_of, for the model's
	 * first grouping to take. Owned, or NULL (none, taken, or freed by
	 * that grouping when it weighs otherwise).
	 */
	uint64_t *weights;
	uint64_t weights_total;
	size_t weights_of;
};

struct lens {
	size_t profile;            /* index into the set's profiles */
	bool *threads;             /* per thread: shown; NULL means all; owned */
	struct search_re *search_re; /* owned; NULL when there is none */
	uint32_t search_func;      /* a function (func_id) searched, or UINT32_MAX */
	bool timed;                /* only the samples of [t0, t1) (ns, the
				    * profile's clock) count */
	int64_t t0, t1;
	bool count_samples;        /* weigh each sample 1, whatever its weight */

	struct lens_level *levels; /* the transforms, first applied first */
	uint32_t nr_levels, alloc_levels;
	struct lens_transform *redo; /* popped, the last popped last */
	uint32_t nr_redo, alloc_redo;

	bool by_process;           /* group by process (see above) */
	struct lens_group group;   /* by_process: the group */
	/*
	 * by_process: the levels over ps's own stacks as they were when
	 * grouping began, kept so that ungrouping takes them back, as many
	 * as are still of the same transforms, rather than build them again
	 * (their re is NULL). Owned.
	 */
	struct lens_level *ungrouped;
	uint32_t nr_ungrouped;
	/*
	 * Not by_process: the group and the levels over it as they were
	 * when grouping stopped (kept_group.id is then not 0), kept so that
	 * grouping again takes them back, as ungrouping takes back the
	 * ungrouped levels, rather than build them: a toggle of P is then a
	 * swap. Dropped with the set's stacks (lens_rebuild()). Owned.
	 */
	struct lens_group kept_group;
	struct lens_level *grouped;
	uint32_t nr_grouped;
	/*
	 * The outermost marks of lens_base()'s stacks (one bit a stack, as
	 * func_table_mark_outermost() makes them), borrowed, or NULL: when
	 * set, each transform built marks its view's stacks in its pass
	 * (lens_level.outermost), which spares a walk of every view.
	 */
	const uint64_t *set_marks;
	uint64_t level_builds;     /* counts levels built: their ids */
	struct lens_prep *prep;    /* a group being prepared, or NULL; owned */
};

/* A lens file's line for the group by process (--by-process). */
#define LENS_BY_PROCESS_LINE "by-process"

void lens_init(struct lens *l);
void lens_release(struct lens *l);

/*
 * Apply transform kind with arg on top of the others, over ps (the set
 * the lens is of). Returns 0, or -1 with err set when arg is no valid
 * regex or path (the lens is then unchanged). collapse-module adds a
 * frame "[module]" per module it collapses to ps (which must not be read
 * by another thread meanwhile). The redo list is emptied.
 */
int lens_push(struct lens *l, struct profile_set *ps, enum lens_kind kind, const char *arg,
	      struct tf_error *err);
/*
 * Whether arg is valid for kind: 0 with *re the compiled regex (NULL for
 * a path; the caller frees it), or -1 with err set, as lens_push() says.
 */
int lens_check_arg(enum lens_kind kind, const char *arg, struct search_re **re,
		   struct tf_error *err);
/* Remove the last transform, keeping it for lens_redo(). false if none. */
bool lens_pop(struct lens *l);
/* Apply again the transform popped last. false if there is none. */
bool lens_redo(struct lens *l, struct profile_set *ps);
/* Remove every transform (not undoable). */
void lens_clear_transforms(struct lens *l);
/*
 * ps's frames and stacks were replaced (symbols came): build every
 * transform's view again from its text.
 */
void lens_rebuild(struct lens *l, struct profile_set *ps);

/*
 * Group by process, or stop (see above), over ps: the transforms are
 * built again over the new base, as their text says (a call path of
 * focus-subtree or merge-call-node names the frames from the root, so a
 * path taken in one grouping matches nothing in the other). Grouping
 * keeps their views of ps's stacks (ungrouped) and stopping takes back
 * those still of the same transforms, building only the others; the
 * same way stopping keeps the group and its levels (kept_group, grouped)
 * and grouping again takes them back, building nothing that is kept; with
 * set_marks (ps's marks) grouping makes the group's (group.marks), and
 * the transforms over it mark their views. Grouping adds the process
 * frames to ps (not to be read by another thread meanwhile) and may run
 * a second thread of its own. Returns false when the lens already was so.
 */
bool lens_set_by_process(struct lens *l, struct profile_set *ps, bool on);
/*
 * Make the group by process ahead of the first grouping, on a thread of
 * its own, so that grouping later is a swap: the group of a set of
 * millions of samples took most of the first P. The process frames are
 * added to ps now (the model must take them in: model_prepare_group()),
 * with set_marks (ps's outermost marks, copied) the group's are made,
 * and the group is kept as ungrouping keeps one (kept_group), once
 * waited for. Meanwhile ps must not change: every call of the lens that
 * changes it (a collapse-module, lens_rebuild(), lens_bake()) or groups
 * waits first; anything else that would, such as symbols swapping
 * ps's tables, must call lens_prepare_wait() before. With weigh a
 * profile's index (else SIZE_MAX), the group's weights of all its
 * samples are made too (lens_group.weights). False, with nothing
 * started, when grouped or a group is kept already.
 */
bool lens_prepare_group(struct lens *l, struct profile_set *ps, const uint64_t *set_marks,
			size_t weigh);
/* Wait for the group being prepared, if any, and keep it (kept_group). */
void lens_prepare_wait(struct lens *l);
/* Whether a group is being prepared (not waited for yet). */
bool lens_preparing(const struct lens *l);

/* Whether the lens reshapes the stacks: a transform, or the group by process. */
static inline bool
lens_reshaped(const struct lens *l)
{
	return l->nr_levels || l->by_process;
}
/* The stacks the transforms take: group by process, or ps. */
const struct profile_set *lens_base(const struct lens *l, const struct profile_set *ps);
/* Per sample of ps's profile i, its stack in lens_base(). */
stack_id *lens_sample_stacks(const struct lens *l, const struct profile_set *ps,
			     size_t i);
/*
 * Append the name of the process frame of thread t: "comm-PID" as
 * collapse_root_name() writes it with --pid, "[pid N]" or "[unknown
 * process]" for a thread with no comm.
 */
void lens_process_name(const struct profile_set *ps, const struct thread *t,
		       struct strbuf *out);

/* The stacks the lens shows: the last transform's view, or lens_base(). */
const struct profile_set *lens_view(const struct lens *l, const struct profile_set *ps);
/*
 * Per stack of lens_base(), its stack in lens_view(); NULL with no
 * transforms.
 */
const stack_id *lens_map(const struct lens *l);

/*
 * Fold per-stack weights w of lens_base() (its nr_stacks entries) through
 * the map into out (lens_view()->nr_stacks entries, overwritten). Returns their
 * sum: the weight the lens keeps.
 */
uint64_t lens_fold_weights(const struct lens *l, const struct profile_set *ps,
			   const uint64_t *w, uint64_t *out);

/*
 * Make the transforms ps's own, for a command that writes the samples
 * (collapse): every profile keeps only the samples the lens keeps, each
 * with its view stack, and ps takes the last view's stack trie, giving
 * up its source positions and recorded figures. A time range drops the
 * samples out of it too, and is then gone from the lens; so is the group
 * by process, its frames then ps's own. The lens is left with no
 * transform (not undoable). Any model over ps must drop its caches
 * (model_set_changed()) or go.
 */
void lens_bake(struct lens *l, struct profile_set *ps);

/* The call path of stack s of set as lens text: names joined by ';'. */
void lens_path_text(const struct profile_set *set, stack_id s, struct strbuf *out);
/* A regex matching exactly the function name (for "by function"). */
void lens_quote_name(const char *name, struct strbuf *out);

/*
 * Append "by process > merge gc > focus Tree": the group by process, then
 * each transform's crumb and argument, a regex of lens_quote_name() shown
 * as the name it matches.
 */
void lens_describe(const struct lens *l, struct strbuf *out);

/*
 * Lens files: one transform a line, "KIND:ARG" as --transform takes
 * them, and LENS_BY_PROCESS_LINE for the group by process (below them
 * wherever it is); lines starting with '#' and blank lines are ignored.
 * lens_write() appends a comment line, the group and the transforms of l.
 * lens_parse_transform() reads one "KIND:ARG" into *kind and *arg
 * (pointing into text); returns 0, or -1 with err naming the problem.
 */
void lens_write(const struct lens *l, struct strbuf *out);
int lens_parse_transform(const char *text, enum lens_kind *kind, const char **arg,
			 struct tf_error *err);

/*
 * Check the group by process (each sample's stack is its stack in ps under
 * one process frame) and every transform's view and map against
 * lens_base(): views that pass
 * profile_set_check(), maps into range, no stack mapped deeper than it
 * is, every stack's view stack on one path with its parent's (above,
 * the same or below it, as keep, merge, collapse and focus make it) or a
 * root's child, unless its parent's is empty, and the dropped ones
 * dropped with their children.
 * Returns 0, or -1 with err set.
 */
int lens_check(const struct lens *l, const struct profile_set *ps, struct tf_error *err);

/*
 * Check a --time range before there is a profile: "START,END" with each
 * end empty, seconds or a percentage, and START before END when both are
 * of one kind. Returns 0, or -1 with err set.
 */
int lens_check_time(const char *text, struct tf_error *err);
/*
 * Read a time range as --time takes it, "START,END" over profile p:
 * seconds from p's first sample ("1.5,3"), or shares of its time span
 * ("10%,20%", as perf report --time); an empty end is p's start or end.
 * Sets [*t0, *t1) on p's clock. Returns 0, or -1 with err set (bad text,
 * START not before END, START after p's end, or p without times).
 */
int lens_parse_time(const char *text, const struct profile *p, int64_t *t0, int64_t *t1,
		    struct tf_error *err);

/*
 * A lens as the command line gives it, for model_apply_spec() (model.h):
 * strings borrowed (from argv), arrays owned.
 */
struct lens_spec {
	const char *event;      /* --event, or NULL: the first profile */
	int64_t *tids, *pids;   /* --thread, --pid */
	size_t nr_tids, alloc_tids, nr_pids, alloc_pids;
	const char *comm;       /* --comm regex, or NULL */
	const char *search;     /* --search regex, or NULL */
	const char *file;       /* --lens FILE, or NULL */
	const char *time;       /* --time START,END, or NULL */
	bool inverted;          /* --inverted: Left Heavy bottom-up */
	bool by_process;        /* --by-process: group by process */
	const char **transforms; /* --transform KIND:ARG, in order */
	size_t nr_transforms, alloc_transforms;
};

/* Free what spec owns (not the strings). */
void lens_spec_release(struct lens_spec *spec);
/* Whether spec filters threads (--thread, --pid or --comm). */
bool lens_spec_filters_threads(const struct lens_spec *spec);

#endif /* TFLAME_LENS_H */
