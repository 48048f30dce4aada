#include "config.h"

#include "tflame/lens.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/builder.h"
#include "tflame/collapse.h"
#include "tflame/error.h"
#include "tflame/functions.h"
#include "tflame/search.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * One transform's pass: the input stacks (the set's, or the view of the
 * transform below), the output view being filled, and what the kind's
 * map() needs. Every per-stack array is indexed by input stack, except
 * near, which is by output stack: a pass creates at most one output stack
 * per input stack, so both fit in nr_stacks of the input.
 */
struct lens_pass {
	const struct profile_set *in;
	struct profile_set *out;
	const uint8_t *match;  /* per frame: the regex matches it */
	/*
	 * The recursion kinds: per frame, its function (functions.h), so
	 * that "the same function" is one read of a small array, not two
	 * of the frame table at random (or NULL).
	 */
	const func_id *func;
	const str_id *path;    /* path kinds: names, outermost first */
	uint32_t depth;        /* path kinds: names in path */
	const str_id *procs;   /* path kinds: the comm-PID names of path[0] as a comm */
	uint32_t nr_procs;
	const frame_id *module_frame; /* collapse-module: per frame, its
				       * module's frame, or FRAME_NONE */
	uint32_t *aux;         /* per input stack, zeroed: the kind's own (or NULL) */
	/*
	 * Per output stack: how many children keep() gave it (up to
	 * STACK_WALK + 1), or VIEW_SHARED once a second input stack maps
	 * to it (or NULL: every keep() looks its stack up). See keep().
	 */
	uint8_t *kids;
	stack_id *near;        /* per output stack: see collapse_recursion() */
	const uint64_t *in_marks; /* the input's outermost marks, or NULL */
	uint64_t *marks;       /* the output's, being made */
	uint64_t walk_budget;  /* steps left for marking by walking up */
};

static inline frame_id
in_frame(const struct lens_pass *lp, stack_id s)
{
	return lp->in->stacks[s].frame;
}

#define VIEW_SHARED UINT8_MAX

/*
 * s's frame under parent_out, as it was: the common case. Most output
 * stacks are the image of one input stack, p, and have no children but
 * the images of p's: those differ in frame, as p's children do, so s's
 * is new and needs no lookup, which was half of a pass (a walk of the
 * siblings made so far, a cache miss each). That holds for the kinds
 * whose only stacks are made here: the pass marks an output stack
 * shared when another input stack maps to it (a merge, a collapse, a
 * root of a focus) and looks up under it from then on.
 */
static inline stack_id
keep(struct lens_pass *lp, stack_id s, stack_id parent_out)
{
	uint8_t *k = lp->kids ? &lp->kids[parent_out] : NULL;

	if (!k || *k == VIEW_SHARED)
		return profile_set_stack(lp->out, parent_out, in_frame(lp, s));
	if (*k <= STACK_WALK)
		(*k)++;
	return profile_set_new_stack(lp->out, parent_out, in_frame(lp, s), *k);
}

/* Whether frames a and b are one function: the same name and module. */
static inline bool
same_func(const struct profile_set *ps, frame_id a, frame_id b)
{
	const struct frame *x = &ps->frames[a], *y = &ps->frames[b];

	return a == b || (x->name == y->name && x->module == y->module);
}

/* Whether frames a and b are one function as func_table_init() has it. */
static inline bool
one_func(const struct profile_set *ps, frame_id a, frame_id b)
{
	return same_func(ps, a, b) && !((ps->frames[a].flags ^ ps->frames[b].flags) & FRAME_PROCESS);
}

static inline bool
bit_get(const uint64_t *bits, uint32_t i)
{
	return bits[i >> 6] >> (i & 63) & 1;
}

/*
 * Mark view stack o, just made by the pass for input stack s: outermost
 * when its function is not on the view path above it. A transform only
 * removes frames from a path (or, for collapse-module, replaces a
 * matched module's), so a kept frame that was outermost in the input
 * still is; any other is looked for up the view path. Those walks are
 * budgeted: a profile of deep recursion would make them quadratic, and
 * then the marks are given up (the model walks the view once instead).
 */
static void
mark_new(struct lens_pass *lp, stack_id o, stack_id s)
{
	const struct profile_set *out = lp->out;
	const struct stack_node *on = &out->stacks[o];
	frame_id f = on->frame;

	if (f == in_frame(lp, s) && bit_get(lp->in_marks, s) &&
	    (!lp->module_frame || lp->module_frame[f] == FRAME_NONE))
		goto outermost;
	for (stack_id p = on->parent; p != STACK_ROOT; p = out->stacks[p].parent) {
		if (!lp->walk_budget--) {
			free(lp->marks);
			lp->marks = NULL;
			return;
		}
		if (one_func(out, out->stacks[p].frame, f))
			return;
	}
outermost:
	lp->marks[o >> 6] |= (uint64_t)1 << (o & 63);
}

/* Whether process frame f is one of the path's first name as a comm (process_names()). */
static bool
is_path_process(const struct lens_pass *lp, frame_id f)
{
	const struct frame *fr = &lp->in->frames[f];

	if (!(fr->flags & FRAME_PROCESS))
		return false;
	for (uint32_t i = 0; i < lp->nr_procs; i++)
		if (lp->procs[i] == fr->name)
			return true;
	return false;
}

/*
 * Whether s is on the pass's path, given its parent (aux: 1 when on it).
 * A path made without the group by process starts at a perf profile's
 * process frame, its comm: grouped, that is each of the comm's
 * processes (comm-PID), which hold the same samples between them.
 */
static bool
on_path(struct lens_pass *lp, stack_id s)
{
	const struct stack_node *n = &lp->in->stacks[s];
	bool on = n->depth <= lp->depth && lp->aux[n->parent] &&
		  (lp->in->frames[n->frame].name == lp->path[n->depth - 1] ||
		   (n->depth == 1 && lp->nr_procs && is_path_process(lp, n->frame)));

	lp->aux[s] = on;
	return on;
}

/*
 * focus-subtree: only what is under the path, the path's last frame
 * becoming the root; the frames above it are removed, and the samples
 * that stop short of it or leave it are dropped.
 */
static stack_id
focus_subtree(struct lens_pass *lp, stack_id s, stack_id parent_out)
{
	uint32_t d = lp->in->stacks[s].depth;

	if (d > lp->depth)
		return keep(lp, s, parent_out);
	if (!on_path(lp, s))
		return LENS_DROPPED;
	return d == lp->depth ? keep(lp, s, STACK_ROOT) : STACK_ROOT;
}

/*
 * focus-function: every outermost call of the function becomes a root
 * with what it calls; samples outside it are dropped (their stack is
 * empty). A stack is in focus when its parent's view is not the root.
 */
static stack_id
focus_function(struct lens_pass *lp, stack_id s, stack_id parent_out)
{
	if (parent_out != STACK_ROOT)
		return keep(lp, s, parent_out);
	return lp->match[in_frame(lp, s)] ? keep(lp, s, STACK_ROOT) : STACK_ROOT;
}

/*
 * focus-function-inverted: what the function's samples were called from,
 * as the inverted tree's root shows it: each sample's stack is cut after
 * its innermost frame of the function, and samples without it are
 * dropped. aux holds each stack's whole copy in the view, made for every
 * stack, as any may be the prefix an inner call is cut to.
 */
static stack_id
focus_function_inverted(struct lens_pass *lp, stack_id s, stack_id parent_out)
{
	stack_id parent = lp->in->stacks[s].parent;
	stack_id whole = profile_set_stack(lp->out, lp->aux[parent], in_frame(lp, s));

	lp->aux[s] = whole;
	return lp->match[in_frame(lp, s)] ? whole : parent_out;
}

/* merge-function: its frames go, their callees hang from its caller. */
static stack_id
merge_function(struct lens_pass *lp, stack_id s, stack_id parent_out)
{
	return lp->match[in_frame(lp, s)] ? parent_out : keep(lp, s, parent_out);
}

/* merge-call-node: as merge-function, for the path's last node only. */
static stack_id
merge_call_node(struct lens_pass *lp, stack_id s, stack_id parent_out)
{
	uint32_t d = lp->in->stacks[s].depth;

	if (d <= lp->depth && on_path(lp, s) && d == lp->depth)
		return parent_out;
	return keep(lp, s, parent_out);
}

/* drop-function: every sample with the function on its stack goes. */
static stack_id
drop_function(struct lens_pass *lp, stack_id s, stack_id parent_out)
{
	return lp->match[in_frame(lp, s)] ? LENS_DROPPED : keep(lp, s, parent_out);
}

/*
 * collapse-recursion: a call of the function from inside itself, however
 * indirect, is folded into the outer call, with every frame between
 * them: A F B F C becomes A F C. near[o] is the nearest matched stack on
 * output path o (itself included), STACK_ROOT if none; an output path
 * holds each function at most once once collapsed, so the walk up the
 * matched stacks is as long as the number of distinct matched functions
 * on it, not as deep as the stack.
 */
static stack_id
collapse_recursion(struct lens_pass *lp, stack_id s, stack_id parent_out)
{
	const struct profile_set *out = lp->out;
	frame_id f = in_frame(lp, s);
	stack_id o;

	if (!lp->match[f]) {
		o = keep(lp, s, parent_out);
		lp->near[o] = lp->near[parent_out];
		return o;
	}
	/*
	 * Outermost in the input: the function is nowhere above, so not on
	 * the output path either, which only lost frames. The walk is for
	 * the inner calls.
	 */
	if (lp->in_marks && bit_get(lp->in_marks, s))
		goto kept;
	for (stack_id q = lp->near[parent_out]; q != STACK_ROOT;
	     q = lp->near[out->stacks[q].parent])
		if (lp->func[out->stacks[q].frame] == lp->func[f])
			return q;
kept:
	o = keep(lp, s, parent_out);
	lp->near[o] = o;
	return o;
}

/*
 * collapse-direct-recursion: only F called by F itself is folded. The
 * parent's view stack is of the parent's function, whether the parent
 * was kept or folded into its own caller, so the input is enough.
 */
static stack_id
collapse_direct_recursion(struct lens_pass *lp, stack_id s, stack_id parent_out)
{
	frame_id f = in_frame(lp, s);

	if (lp->match[f] && parent_out != STACK_ROOT &&
	    lp->func[in_frame(lp, lp->in->stacks[s].parent)] == lp->func[f])
		return parent_out;
	return keep(lp, s, parent_out);
}

/* collapse-subtree: the function keeps the weight of all it calls. */
static stack_id
collapse_subtree(struct lens_pass *lp, stack_id s, stack_id parent_out)
{
	stack_id parent = lp->in->stacks[s].parent;

	if (lp->aux[parent]) {
		lp->aux[s] = 1;
		return parent_out;
	}
	lp->aux[s] = lp->match[in_frame(lp, s)];
	return keep(lp, s, parent_out);
}

/*
 * collapse-module: a run of frames of one module becomes one frame named
 * after the module, "[libfoo.so]", where the call enters it.
 */
static stack_id
collapse_module(struct lens_pass *lp, stack_id s, stack_id parent_out)
{
	frame_id mf = lp->module_frame[in_frame(lp, s)];

	if (mf == FRAME_NONE)
		return keep(lp, s, parent_out);
	if (parent_out != STACK_ROOT && lp->out->stacks[parent_out].frame == mf)
		return parent_out;
	return profile_set_stack(lp->out, parent_out, mf);
}

static const struct lens_kind_ops kinds[LENS_NR_KINDS] = {
	[LENS_FOCUS_SUBTREE] = {
		.name = "focus-subtree", .crumb = "focus", .arg = LENS_ARG_PATH,
		.help = "only the call path's subtree, its last frame as the root",
		.map = focus_subtree,
	},
	[LENS_FOCUS_FUNCTION] = {
		.name = "focus-function", .crumb = "focus", .arg = LENS_ARG_FUNCTION,
		.help = "only the function's calls, each a root with its callees",
		.map = focus_function,
	},
	[LENS_FOCUS_FUNCTION_INVERTED] = {
		.name = "focus-function-inverted", .crumb = "focus callers",
		.arg = LENS_ARG_FUNCTION,
		.help = "only the function's samples, cut below its innermost call",
		.map = focus_function_inverted,
	},
	[LENS_MERGE_FUNCTION] = {
		.name = "merge-function", .crumb = "merge", .arg = LENS_ARG_FUNCTION,
		.help = "remove the function's frames, its weight going to its callers",
		.map = merge_function,
	},
	[LENS_MERGE_CALL_NODE] = {
		.name = "merge-call-node", .crumb = "merge node", .arg = LENS_ARG_PATH,
		.help = "remove the call path's last frame, there only",
		.map = merge_call_node,
	},
	[LENS_DROP_FUNCTION] = {
		.name = "drop-function", .crumb = "drop", .arg = LENS_ARG_FUNCTION,
		.help = "drop the samples with the function on their stack",
		.map = drop_function,
	},
	[LENS_COLLAPSE_RECURSION] = {
		.name = "collapse-recursion", .crumb = "collapse rec",
		.arg = LENS_ARG_FUNCTION,
		.help = "fold the function's recursive calls, direct or not, into the outer",
		.map = collapse_recursion,
	},
	[LENS_COLLAPSE_DIRECT_RECURSION] = {
		.name = "collapse-direct-recursion", .crumb = "collapse direct rec",
		.arg = LENS_ARG_FUNCTION,
		.help = "fold the function's calls of itself into the caller",
		.map = collapse_direct_recursion,
	},
	[LENS_COLLAPSE_SUBTREE] = {
		.name = "collapse-subtree", .crumb = "collapse", .arg = LENS_ARG_FUNCTION,
		.help = "fold all the function calls into it",
		.map = collapse_subtree,
	},
	[LENS_COLLAPSE_MODULE] = {
		.name = "collapse-module", .crumb = "collapse module", .arg = LENS_ARG_MODULE,
		.help = "fold each run of the module's frames into one, [module]",
		.map = collapse_module,
	},
};

const struct lens_kind_ops *
lens_kind_ops(enum lens_kind kind)
{
	if ((unsigned)kind >= LENS_NR_KINDS)
		BUG("lens kind %d", (int)kind);
	return &kinds[kind];
}

const struct lens_kind_ops *
lens_kind_find(const char *name, enum lens_kind *kind)
{
	for (int k = 0; k < LENS_NR_KINDS; k++)
		if (!strcmp(kinds[k].name, name)) {
			if (kind)
				*kind = (enum lens_kind)k;
			return &kinds[k];
		}
	return NULL;
}

/* ------------------------------------------------------------------ lens */

void
lens_init(struct lens *l)
{
	memset(l, 0, sizeof(*l));
	l->search_func = UINT32_MAX;
}

static void
level_release(struct lens_level *lv)
{
	free(lv->t.arg);
	search_re_free(lv->re);
	profile_set_view_release(&lv->view);
	free(lv->map);
	free(lv->outermost);
	memset(lv, 0, sizeof(*lv));
}

static void
clear_redo(struct lens *l)
{
	for (uint32_t i = 0; i < l->nr_redo; i++)
		free(l->redo[i].arg);
	l->nr_redo = 0;
}

/* An array of n kept levels goes, and its count with it. */
static void
kept_levels_release(struct lens_level **levels, uint32_t *n)
{
	for (uint32_t i = 0; i < *n; i++)
		level_release(&(*levels)[i]);
	free(*levels);
	*levels = NULL;
	*n = 0;
}

/* The levels kept from before grouping go (lens.ungrouped). */
static void
ungrouped_release(struct lens *l)
{
	kept_levels_release(&l->ungrouped, &l->nr_ungrouped);
}

/* The levels kept from before ungrouping go (lens.grouped). */
static void
grouped_release(struct lens *l)
{
	kept_levels_release(&l->grouped, &l->nr_grouped);
}

/* A group's stacks, samples' stacks and marks go; it is left empty (id 0). */
static void
lens_group_release(struct lens_group *g)
{
	for (size_t i = 0; i < g->nr_stack; i++)
		free(g->stack[i]);
	free(g->stack);
	free(g->marks);
	free(g->weights);
	profile_set_view_release(&g->set);
	memset(g, 0, sizeof(*g));
}

/* The group kept from the last grouping, and its levels: let go. */
static void
kept_release(struct lens *l)
{
	grouped_release(l);
	lens_group_release(&l->kept_group);
}

void
lens_clear_transforms(struct lens *l)
{
	while (l->nr_levels)
		level_release(&l->levels[--l->nr_levels]);
	clear_redo(l);
	ungrouped_release(l);
	grouped_release(l);
}

static void group_release(struct lens *l);
static void group_build(struct lens *l, struct profile_set *ps);

void
lens_release(struct lens *l)
{
	lens_prepare_wait(l);
	lens_clear_transforms(l);
	kept_release(l);
	group_release(l);
	free(l->levels);
	free(l->redo);
	free(l->threads);
	search_re_free(l->search_re);
	memset(l, 0, sizeof(*l));
}

const struct profile_set *
lens_base(const struct lens *l, const struct profile_set *ps)
{
	return l->by_process ? &l->group.set : ps;
}

stack_id *
lens_sample_stacks(const struct lens *l, const struct profile_set *ps, size_t i)
{
	if (i >= ps->nr_profiles)
		BUG("profile %zu of %zu", i, ps->nr_profiles);
	return l->by_process ? l->group.stack[i] : ps->profiles[i]->stack;
}

const struct profile_set *
lens_view(const struct lens *l, const struct profile_set *ps)
{
	return l->nr_levels ? &l->levels[l->nr_levels - 1].view : lens_base(l, ps);
}

const stack_id *
lens_map(const struct lens *l)
{
	return l->nr_levels ? l->levels[l->nr_levels - 1].map : NULL;
}

/*
 * A view borrows ps's strings and frames by value: after collapse-module
 * or the group by process added to them, every view takes the tables
 * again.
 */
static void
sync_views(struct lens *l, const struct profile_set *ps)
{
	for (uint32_t i = 0; i < l->nr_levels; i++)
		profile_set_view_sync(&l->levels[i].view, ps);
	for (uint32_t i = 0; i < l->nr_ungrouped; i++)
		profile_set_view_sync(&l->ungrouped[i].view, ps);
	for (uint32_t i = 0; i < l->nr_grouped; i++)
		profile_set_view_sync(&l->grouped[i].view, ps);
	if (l->by_process)
		profile_set_view_sync(&l->group.set, ps);
	if (l->kept_group.id)
		profile_set_view_sync(&l->kept_group.set, ps);
}

/* Split a path "a;b;c" into str_ids of ps; a name ps lacks matches nothing. */
static str_id *
resolve_path(const struct profile_set *ps, const char *text, uint32_t *depth)
{
	str_id *path = NULL;
	size_t alloc = 0;
	uint32_t nr = 0;

	for (const char *p = text;;) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int64_t id = intern_find(&ps->strings, p, len);

		ALLOC_GROW(path, nr, alloc);
		path[nr++] = id < 0 ? (str_id)UINT32_MAX : (str_id)id;
		if (!end)
			break;
		p = end + 1;
	}
	*depth = nr;
	return path;
}

/*
 * The names the group by process gives the processes whose comm is
 * name (lens_process_name()), those ps has: *nr of them, or NULL.
 */
static str_id *
process_names(const struct profile_set *ps, str_id name, uint32_t *nr)
{
	struct strbuf sb = STRBUF_INIT;
	str_id *out = NULL;
	size_t alloc = 0;

	*nr = 0;
	if (name == (str_id)UINT32_MAX || name == STR_EMPTY)
		return NULL;
	for (thread_id t = 0; t < ps->nr_threads; t++) {
		int64_t id;
		uint32_t i;

		if (ps->threads[t].comm != name)
			continue;
		strbuf_setlen(&sb, 0);
		lens_process_name(ps, &ps->threads[t], &sb);
		id = intern_find(&ps->strings, sb.buf, sb.len);
		if (id < 0 || (str_id)id == name)
			continue;
		/* Threads of a process come together: most repeats are the last one. */
		for (i = *nr; i > 0 && out[i - 1] != (str_id)id; i--)
			;
		if (i)
			continue;
		ALLOC_GROW(out, *nr, alloc);
		out[(*nr)++] = (str_id)id;
	}
	strbuf_release(&sb);
	return out;
}

/*
 * Per frame of ps: whether re matches its name (or its module). The
 * regex runs once per distinct string, as a set has many more frames than
 * names when it keeps addresses or lines.
 */
static uint8_t *
match_frames(const struct profile_set *ps, struct search_re *re, bool module)
{
	uint8_t *match = xcalloc((size_t)ps->nr_frames + 1, 1);
	uint8_t *seen = xcalloc((size_t)intern_count(&ps->strings) + 1, 1);

	for (frame_id f = 0; f < ps->nr_frames; f++) {
		str_id s = module ? ps->frames[f].module : ps->frames[f].name;

		if (module && s == STR_EMPTY)
			continue;
		if (!seen[s])
			seen[s] = search_re_match(re, ps_get(ps, s),
						  intern_len(&ps->strings, s)) ? 2 : 1;
		match[f] = seen[s] == 2;
	}
	free(seen);
	return match;
}

/* The last path component of a module: "libc.so.6" of "/usr/lib/libc.so.6". */
static const char *
module_base(const char *module)
{
	const char *slash = strrchr(module, '/');

	return slash && slash[1] ? slash + 1 : module;
}

/*
 * collapse-module: per frame of ps, the frame "[module]" its matched
 * module collapses to (added to ps), or FRAME_NONE.
 */
static frame_id *
module_frames(struct profile_set *ps, const uint8_t *match)
{
	uint32_t n = ps->nr_frames;
	frame_id *mf = xmalloc(sizeof(*mf) * ((size_t)n + 1));
	struct strbuf sb = STRBUF_INIT;

	for (frame_id f = 0; f < n; f++) {
		struct frame nf = { 0 };

		mf[f] = FRAME_NONE;
		if (!match[f])
			continue;
		nf.module = ps->frames[f].module;
		strbuf_setlen(&sb, 0);
		strbuf_addch(&sb, '[');
		strbuf_addstr(&sb, module_base(ps_get(ps, nf.module)));
		strbuf_addch(&sb, ']');
		nf.name = ps_str(ps, sb.buf, sb.len);
		mf[f] = profile_set_frame(ps, &nf);
	}
	strbuf_release(&sb);
	return mf;
}

/*
 * Run level lv's transform over in (the view below it, or ps) into
 * lv->view, and compose lv->map from below's map (NULL: the identity).
 */
static void
level_build(struct lens_level *lv, struct profile_set *ps, const struct profile_set *base,
	    const struct profile_set *in, const stack_id *below, const uint64_t *in_marks)
{
	const struct lens_kind_ops *ops = lens_kind_ops(lv->t.kind);
	struct lens_pass lp = { .in = in, .out = &lv->view };
	uint32_t n = in->nr_stacks;
	stack_id *out_of = xmalloc(sizeof(*out_of) * ((size_t)n + 1));
	uint8_t *match = NULL;
	frame_id *mf = NULL;
	str_id *path = NULL, *procs = NULL;
	struct func_table ft = { 0 };

	if (ops->arg == LENS_ARG_PATH) {
		path = resolve_path(ps, lv->t.arg, &lp.depth);
		lp.path = path;
		lp.procs = procs = process_names(ps, path[0], &lp.nr_procs);
	} else {
		match = match_frames(ps, lv->re, ops->arg == LENS_ARG_MODULE);
		lp.match = match;
		if (ops->arg == LENS_ARG_MODULE)
			lp.module_frame = mf = module_frames(ps, match);
	}
	if (lv->t.kind == LENS_COLLAPSE_RECURSION || lv->t.kind == LENS_COLLAPSE_DIRECT_RECURSION) {
		func_table_init(&ft, ps);
		lp.func = ft.frame_func;
	}
	profile_set_view_init(&lv->view, ps);
	profile_set_reserve_stacks(&lv->view, n);
	/*
	 * Only the path kinds, focus-function-inverted and collapse-subtree
	 * keep a word per input stack, and only collapse-recursion walks
	 * its output: the others spare the memory (and its fresh pages).
	 */
	switch (lv->t.kind) {
	case LENS_FOCUS_SUBTREE:
	case LENS_MERGE_CALL_NODE:
	case LENS_FOCUS_FUNCTION_INVERTED:
	case LENS_COLLAPSE_SUBTREE:
		lp.aux = xcalloc((size_t)n + 1, sizeof(*lp.aux));
		/* The root is on every path and in no collapsed subtree of its own. */
		lp.aux[STACK_ROOT] = lv->t.kind == LENS_COLLAPSE_SUBTREE ? 0 : 1;
		if (lv->t.kind == LENS_FOCUS_FUNCTION_INVERTED)
			lp.aux[STACK_ROOT] = STACK_ROOT;
		break;
	case LENS_COLLAPSE_RECURSION:
		lp.near = xcalloc((size_t)n + 1, sizeof(*lp.near));
		break;
	default:
		break;
	}
	/* The two kinds that make stacks of their own look every one up. */
	if (lv->t.kind != LENS_FOCUS_FUNCTION_INVERTED && lv->t.kind != LENS_COLLAPSE_MODULE) {
		lp.kids = xcalloc((size_t)n + 1, 1);
		lp.kids[STACK_ROOT] = VIEW_SHARED;
	}

	/* At most one new stack an input stack, so n bits hold the view's marks. */
	if (in_marks) {
		lp.in_marks = in_marks;
		lp.marks = xcalloc((size_t)n / 64 + 1, sizeof(*lp.marks));
		lp.walk_budget = 4 * (uint64_t)n + 4096;
	}
	out_of[STACK_ROOT] = STACK_ROOT;
	for (stack_id s = 1; s < n; s++) {
		stack_id po = out_of[in->stacks[s].parent];
		uint32_t before = lv->view.nr_stacks;

		if (po == LENS_DROPPED) {
			out_of[s] = LENS_DROPPED;
			continue;
		}
		out_of[s] = ops->map(&lp, s, po);
		if (lp.kids && out_of[s] < before)
			lp.kids[out_of[s]] = VIEW_SHARED;
		for (stack_id o = before; lp.marks && o < lv->view.nr_stacks; o++)
			mark_new(&lp, o, s);
	}
	lv->outermost = lp.marks;

	lv->map = xmalloc(sizeof(*lv->map) * ((size_t)base->nr_stacks + 1));
	lv->kept_stacks = 0;
	for (stack_id b = 0; b < base->nr_stacks; b++) {
		stack_id s = below ? below[b] : b;

		lv->map[b] = s == LENS_DROPPED ? LENS_DROPPED : out_of[s];
		lv->kept_stacks += lv->map[b] != LENS_DROPPED && lv->map[b] != STACK_ROOT;
	}
	free(lp.near);
	free(lp.kids);
	free(lp.aux);
	free(path);
	free(procs);
	free(mf);
	free(match);
	free(out_of);
	func_table_release(&ft);
}

/* Build level i (its transform set) over the levels below it. */
static void
build_level(struct lens *l, struct profile_set *ps, uint32_t i)
{
	const struct lens_level *below = i ? &l->levels[i - 1] : NULL;
	uint32_t frames = ps->nr_frames;

	const struct profile_set *base = lens_base(l, ps);

	l->levels[i].id = ++l->level_builds;
	level_build(&l->levels[i], ps, base, below ? &below->view : base,
		    below ? below->map : NULL, below ? below->outermost : l->set_marks);
	if (ps->nr_frames != frames)
		sync_views(l, ps);
}

int
lens_check_arg(enum lens_kind kind, const char *arg, struct search_re **re, struct tf_error *err)
{
	const struct lens_kind_ops *ops = lens_kind_ops(kind);
	size_t offset;

	*re = NULL;
	if (!*arg)
		return tf_error_set(err, "%s needs %s", ops->name,
				    ops->arg == LENS_ARG_PATH ? "a call path" : "a regex");
	if (ops->arg == LENS_ARG_PATH)
		return 0;
	*re = search_re_new(arg, strlen(arg), &offset, err);
	return *re ? 0 : -1;
}

/* Push without touching the redo list. */
static int
push(struct lens *l, struct profile_set *ps, enum lens_kind kind, const char *arg,
     struct tf_error *err)
{
	struct lens_level *lv;
	struct search_re *re;

	if (lens_check_arg(kind, arg, &re, err))
		return -1;
	/* collapse-module adds frames to ps, which a group being prepared reads. */
	if (kind == LENS_COLLAPSE_MODULE)
		lens_prepare_wait(l);
	ALLOC_GROW(l->levels, l->nr_levels, l->alloc_levels);
	lv = &l->levels[l->nr_levels++];
	memset(lv, 0, sizeof(*lv));
	lv->t.kind = kind;
	lv->t.arg = xstrdup(arg);
	lv->re = re;
	build_level(l, ps, l->nr_levels - 1);
	return 0;
}

int
lens_push(struct lens *l, struct profile_set *ps, enum lens_kind kind, const char *arg,
	  struct tf_error *err)
{
	if (push(l, ps, kind, arg, err))
		return -1;
	clear_redo(l);
	return 0;
}

bool
lens_pop(struct lens *l)
{
	struct lens_level *lv;

	if (!l->nr_levels)
		return false;
	lv = &l->levels[--l->nr_levels];
	ALLOC_GROW(l->redo, l->nr_redo, l->alloc_redo);
	l->redo[l->nr_redo++] = lv->t;
	lv->t.arg = NULL;
	level_release(lv);
	return true;
}

bool
lens_redo(struct lens *l, struct profile_set *ps)
{
	struct lens_transform t;
	struct tf_error err = TF_ERROR_INIT;
	int ret;

	if (!l->nr_redo)
		return false;
	t = l->redo[--l->nr_redo];
	/* It was valid when pushed: the same text compiles again. */
	ret = push(l, ps, t.kind, t.arg, &err);
	free(t.arg);
	tf_error_release(&err);
	return ret == 0;
}

/* The transforms' views and maps go, before their base changes. */
static void
levels_release_views(struct lens *l)
{
	for (uint32_t i = 0; i < l->nr_levels; i++) {
		struct lens_level *lv = &l->levels[i];

		profile_set_view_release(&lv->view);
		free(lv->map);
		free(lv->outermost);
		lv->map = NULL;
		lv->outermost = NULL;
	}
}

/* ... and are built again, each over the one below, from their text. */
static void
levels_build(struct lens *l, struct profile_set *ps)
{
	for (uint32_t i = 0; i < l->nr_levels; i++)
		build_level(l, ps, i);
}

void
lens_rebuild(struct lens *l, struct profile_set *ps)
{
	lens_prepare_wait(l);
	kept_release(l);
	ungrouped_release(l);
	levels_release_views(l);
	/* The process frames may be gone with the old frames: made again. */
	if (l->by_process) {
		group_release(l);
		group_build(l, ps);
	}
	levels_build(l, ps);
}

/* ------------------------------------------------------------ by process */

void
lens_process_name(const struct profile_set *ps, const struct thread *t, struct strbuf *out)
{
	if (t->comm != STR_EMPTY)
		collapse_root_name(ps, t, true, false, out);
	else if (t->pid >= 0)
		strbuf_addf(out, "[pid %lld]", (long long)t->pid);
	else
		strbuf_addstr(out, "[unknown process]");
}

static void
group_release(struct lens *l)
{
	if (l->set_marks == l->group.marks)
		l->set_marks = NULL;
	lens_group_release(&l->group);
	l->by_process = false;
}

/* Samples of one thread in a row: what the group build takes a process at a time. */
struct group_run {
	size_t start;
	uint32_t len;
	uint32_t proc;
};

/* The runs of p's samples, in order, each split at 2^32 - 1 samples. */
static struct group_run *
group_runs(const struct profile *p, const uint32_t *proc_of, size_t *nr)
{
	struct group_run *runs = NULL;
	size_t alloc = 0, n = 0;

	for (size_t i = 0; i < p->nr_samples;) {
		thread_id t = p->thread[i];
		size_t j = i + 1;

		while (j < p->nr_samples && p->thread[j] == t && j - i < UINT32_MAX)
			j++;
		/* Threads of one process in a row make one run. */
		if (n && runs[n - 1].proc == proc_of[t] &&
		    runs[n - 1].start + runs[n - 1].len == i &&
		    (uint64_t)runs[n - 1].len + (j - i) < UINT32_MAX) {
			runs[n - 1].len += (uint32_t)(j - i);
		} else {
			ALLOC_GROW(runs, n, alloc);
			runs[n++] = (struct group_run){ i, (uint32_t)(j - i), proc_of[t] };
		}
		i = j;
	}
	*nr = n;
	return runs;
}

/* Which processes (bits, within a band of 64) have a base stack, and its first group stack. */
struct group_at {
	uint64_t procs;
	stack_id first; /* GROUP_AT_ROOT: a perf process frame at ps's root, replaced */
	uint32_t unused;
};

#define GROUP_AT_ROOT ((stack_id)UINT32_MAX)

/*
 * The bits set in x, inline: without -mpopcnt, __builtin_popcountll() is
 * a call into libgcc, once a sample.
 */
static inline uint32_t
bits_count(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

/* A band's process j (bit j) has base stack s: its group stack. */
static inline stack_id
group_at(const struct group_at *at, const stack_id *root, stack_id s, uint32_t j)
{
	uint64_t below;

	if (s == STACK_ROOT || at[s].first == GROUP_AT_ROOT)
		return root[j];
	/* Most stacks are one process's: nothing to count. */
	below = at[s].procs & (((uint64_t)1 << j) - 1);
	return at[s].first + (below ? bits_count(below) : 0);
}

static inline bool
is_replaced_root(const struct profile_set *ps, stack_id s)
{
	return ps->stacks[s].parent == STACK_ROOT &&
	       (ps->frames[ps->stacks[s].frame].flags & FRAME_PROCESS);
}

/* The build of the group, a band of up to 64 processes at a time. */
struct group_pass {
	struct profile_set *ps, *out;
	uint32_t nr_procs;
	const frame_id *proc_frame;   /* per process: its frame */
	struct group_run **runs;      /* per profile: its runs, by process */
	size_t **first;               /* per profile: where process k's runs begin */
	struct group_at *at;          /* per stack of ps */
	stack_id root[64];            /* the band's processes' roots */
	const uint64_t *marks;        /* ps's outermost marks, or NULL */
	uint64_t *out_marks;          /* the group's, being made */
	uint8_t *proc_frames;         /* bit per frame: FRAME_PROCESS (marks only) */
	bool threads;                 /* a second thread may map the samples */
};

/* Band [lo, hi)'s processes' samples: each one's bit on its stack. */
static void
band_mark(struct group_pass *gp, uint32_t lo, uint32_t hi)
{
	for (size_t pi = 0; pi < gp->ps->nr_profiles; pi++) {
		const stack_id *stack = gp->ps->profiles[pi]->stack;

		for (size_t ri = gp->first[pi][lo]; ri < gp->first[pi][hi]; ri++) {
			const struct group_run *r = &gp->runs[pi][ri];
			uint64_t bit = (uint64_t)1 << (r->proc - lo);

			for (size_t i = r->start; i < r->start + r->len; i++)
				gp->at[stack[i]].procs |= bit;
		}
	}
}

/*
 * Each stack's processes onto its parent, children before parents (ids
 * down): a process has every stack on the path of one it has. Returns
 * the number of group stacks the band makes, or UINT64_MAX when a process
 * would have two stacks alike: its samples under a perf process frame
 * and not, or under two, whose frames then meet under its one root.
 */
static uint64_t
band_spread(struct group_pass *gp)
{
	const struct profile_set *ps = gp->ps;
	struct group_at *at = gp->at;
	uint64_t plain = 0, replaced = 0, twice = 0, n = 0;

	for (stack_id s = ps->nr_stacks - 1; s > 0; s--) {
		uint64_t procs = at[s].procs;

		if (!procs)
			continue;
		at[ps->stacks[s].parent].procs |= procs;
		if (ps->stacks[s].parent != STACK_ROOT || !is_replaced_root(ps, s)) {
			n += (uint64_t)bits_count(procs);
			plain |= ps->stacks[s].parent == STACK_ROOT ? procs : 0;
			continue;
		}
		twice |= replaced & procs;
		replaced |= procs;
	}
	if (twice || (plain & replaced))
		return UINT64_MAX;
	return n + (uint64_t)bits_count(at[STACK_ROOT].procs);
}

/*
 * Mark the group stacks [o, o + n) of base stack s: a process frame is no
 * function of any other frame (one_func()), so dropping one at the root
 * and putting another above changes no other frame's being outermost,
 * and s's mark holds; a process frame's own is looked for up the path.
 */
static void
band_marks(struct group_pass *gp, stack_id s, stack_id o, uint32_t n)
{
	const struct profile_set *out = gp->out;
	frame_id f = out->stacks[o].frame;

	/* Most stacks: s's mark on each of its copies, read once. */
	if (s != STACK_ROOT && !(gp->proc_frames[f >> 3] >> (f & 7) & 1)) {
		if (bit_get(gp->marks, s))
			for (stack_id e = o + n; o < e; o++)
				gp->out_marks[o >> 6] |= (uint64_t)1 << (o & 63);
		return;
	}
	for (stack_id e = o + n; o < e; o++) {
		bool outer = true;

		for (stack_id p = out->stacks[o].parent; outer && p != STACK_ROOT;
		     p = out->stacks[p].parent)
			outer = !one_func(out, out->stacks[p].frame, f);
		if (outer)
			gp->out_marks[o >> 6] |= (uint64_t)1 << (o & 63);
	}
}

/*
 * A piece of a band's samples to map: len samples of profile pi from
 * sample off of run ri on, through the runs after it.
 */
struct map_piece {
	size_t pi, ri;
	uint32_t off, len;
};

/* Samples in a piece: enough that taking one costs nothing beside them. */
#define MAP_PIECE 65536

/* The map of a band's samples to their group stacks, as pieces to take. */
struct map_work {
	const struct group_pass *gp;
	uint32_t lo;
	stack_id **dst;
	struct map_piece *pieces;
	size_t nr_pieces;
	atomic_size_t next;  /* the next piece to take */
};

static void
map_piece_run(const struct map_work *w, const struct map_piece *pc)
{
	const struct group_pass *gp = w->gp;
	const stack_id *stack = gp->ps->profiles[pc->pi]->stack;
	stack_id *dst = w->dst[pc->pi];
	uint32_t off = pc->off, left = pc->len;

	for (size_t ri = pc->ri; left; ri++, off = 0) {
		const struct group_run *r = &gp->runs[pc->pi][ri];
		uint32_t take = r->len - off < left ? r->len - off : left;
		uint32_t j = r->proc - w->lo;

		for (size_t i = r->start + off; i < r->start + off + take; i++)
			dst[i] = group_at(gp->at, gp->root, stack[i], j);
		left -= take;
	}
}

/* Take pieces until there are none left: each thread of the map runs this. */
static void *
map_work_run(void *arg)
{
	struct map_work *w = arg;
	size_t k;

	xheap_huge_pages();
	while ((k = atomic_fetch_add_explicit(&w->next, 1, memory_order_relaxed)) < w->nr_pieces)
		map_piece_run(w, &w->pieces[k]);
	return NULL;
}

/* Band [lo, hi)'s samples cut into pieces, in order; *samples is how many they hold. */
static struct map_piece *
map_pieces(const struct group_pass *gp, uint32_t lo, uint32_t hi, size_t *nr, size_t *samples)
{
	struct map_piece *pieces = NULL, cur = { 0 };
	size_t alloc = 0, n = 0;

	*samples = 0;
	for (size_t pi = 0; pi < gp->ps->nr_profiles; pi++) {
		bool open = false;

		for (size_t ri = gp->first[pi][lo]; ri < gp->first[pi][hi]; ri++) {
			uint32_t len = gp->runs[pi][ri].len;

			*samples += len;
			for (uint32_t off = 0; off < len;) {
				uint32_t take;

				if (!open)
					cur = (struct map_piece){ pi, ri, off, 0 };
				open = true;
				take = len - off < MAP_PIECE - cur.len ? len - off : MAP_PIECE - cur.len;
				cur.len += take;
				off += take;
				if (cur.len == MAP_PIECE) {
					ALLOC_GROW(pieces, n, alloc);
					pieces[n++] = cur;
					open = false;
				}
			}
		}
		if (open) {
			ALLOC_GROW(pieces, n, alloc);
			pieces[n++] = cur;
		}
	}
	*nr = n;
	return pieces;
}

/* Samples in a band below which a second thread is not worth starting. */
#define MAP_THREAD_MIN 1000000

/*
 * Give the band's group stacks, from first on, their depths, and each of
 * band [lo, hi)'s samples its group stack: a read of a table of millions
 * at random per sample, the build's longest pass, and nothing but reads
 * and writes of its own samples. So a second thread maps while this one
 * sets the depths, and then both take pieces of the samples until none
 * is left. Without the second thread, this one does it all.
 *
 * The group's stacks are not linked for lookups: nothing looks one up
 * (a transform over the group makes stacks in its own view, the Sandwich
 * and the inverted tree in theirs), and the lists and table took a
 * tenth of the build and 26 MB of fresh memory at 2.2 M stacks. Adding
 * a stack to the group links them first (profile_set_defer_links()).
 */
static void
band_map(const struct group_pass *gp, uint32_t lo, uint32_t hi, stack_id first,
	 stack_id **dst)
{
	struct map_work w = { .gp = gp, .lo = lo, .dst = dst };
	size_t samples;
	pthread_t thread;
	bool started = false;

	w.pieces = map_pieces(gp, lo, hi, &w.nr_pieces, &samples);
	atomic_init(&w.next, 0);
	if (samples >= MAP_THREAD_MIN && gp->threads)
		started = !pthread_create(&thread, NULL, map_work_run, &w);
	profile_set_defer_links(gp->out, first);
	map_work_run(&w);
	if (started)
		pthread_join(thread, NULL);
	free(w.pieces);
}

/*
 * Band [lo, hi)'s group stacks, in ps's stack order (parents first),
 * each stack's processes in order: a process's stack is then found by
 * counting, with no table (group_at()). Then they are linked for
 * lookups, and each of the band's samples takes its own.
 */
static void
band_build(struct group_pass *gp, uint32_t lo, uint32_t hi, uint64_t n, stack_id **dst)
{
	const struct profile_set *ps = gp->ps;
	struct profile_set *out = gp->out;
	struct group_at *at = gp->at;
	stack_id first = profile_set_add_stacks(out, (uint32_t)n), o = first;

	for (uint32_t j = 0; j < hi - lo; j++) {
		gp->root[j] = STACK_ROOT;
		if (!(at[STACK_ROOT].procs >> j & 1))
			continue;
		gp->root[j] = o;
		out->stacks[o].parent = STACK_ROOT;
		out->stacks[o].frame = gp->proc_frame[lo + j];
		if (gp->out_marks)
			band_marks(gp, STACK_ROOT, o, 1);
		o++;
	}
	for (stack_id s = 1; s < ps->nr_stacks; s++) {
		uint64_t procs = at[s].procs;
		stack_id parent = ps->stacks[s].parent;
		uint32_t k = bits_count(procs);

		if (!procs)
			continue;
		if (parent == STACK_ROOT && is_replaced_root(ps, s)) {
			at[s].first = GROUP_AT_ROOT;
			continue;
		}
		at[s].first = o;
		for (uint64_t rest = procs; rest; rest &= rest - 1) {
			out->stacks[o].parent = group_at(at, gp->root, parent,
							 (uint32_t)__builtin_ctzll(rest));
			out->stacks[o++].frame = ps->stacks[s].frame;
		}
		if (gp->out_marks)
			band_marks(gp, s, o - k, k);
	}
	if (o != first + n)
		BUG("band of %llu group stacks made %u", (unsigned long long)n, o - first);
	band_map(gp, lo, hi, first, dst);
}

static frame_id
thread_root(void *ctx, thread_id t)
{
	const frame_id *of_thread = ctx;

	return of_thread[t];
}

/* The processes of a set's threads, for a group by process. */
struct group_procs {
	uint32_t *proc_of;     /* per thread: its process */
	frame_id *proc_frame;  /* per process: its frame */
	frame_id *of_thread;   /* per thread: its process's frame */
	uint32_t nr_procs;
};

/* Each thread's process frame, added to ps, then the processes numbered by their frames. */
static void
group_procs(struct profile_set *ps, struct group_procs *gr)
{
	frame_id lo = FRAME_NONE, hi = 0;
	uint32_t *index_of;
	struct strbuf sb = STRBUF_INIT;

	gr->proc_of = xmalloc(sizeof(*gr->proc_of) * ((size_t)ps->nr_threads + 1));
	gr->proc_frame = xmalloc(sizeof(*gr->proc_frame) * ((size_t)ps->nr_threads + 1));
	gr->of_thread = xmalloc(sizeof(*gr->of_thread) * ((size_t)ps->nr_threads + 1));
	gr->nr_procs = 0;
	for (thread_id t = 0; t < ps->nr_threads; t++) {
		struct frame f = { 0 };

		strbuf_setlen(&sb, 0);
		lens_process_name(ps, &ps->threads[t], &sb);
		f.name = ps_str(ps, sb.buf, sb.len);
		f.module = STR_EMPTY;
		f.flags = FRAME_PROCESS;
		gr->of_thread[t] = profile_set_frame(ps, &f);
		lo = gr->of_thread[t] < lo ? gr->of_thread[t] : lo;
		hi = gr->of_thread[t] > hi ? gr->of_thread[t] : hi;
	}
	strbuf_release(&sb);
	/* Made together, the process frames are mostly one run of ids. */
	index_of = xmalloc(sizeof(*index_of) * (ps->nr_threads ? (size_t)(hi - lo) + 1 : 1));
	for (thread_id t = 0; t < ps->nr_threads; t++)
		index_of[gr->of_thread[t] - lo] = UINT32_MAX;
	for (thread_id t = 0; t < ps->nr_threads; t++) {
		uint32_t *k = &index_of[gr->of_thread[t] - lo];

		if (*k == UINT32_MAX) {
			gr->proc_frame[gr->nr_procs] = gr->of_thread[t];
			*k = gr->nr_procs++;
		}
		gr->proc_of[t] = *k;
	}
	free(index_of);
}

static void
group_procs_release(struct group_procs *gr)
{
	free(gr->proc_of);
	free(gr->proc_frame);
	free(gr->of_thread);
	memset(gr, 0, sizeof(*gr));
}

/*
 * Group ps by process into g, whose set is a view of ps made once the
 * process frames (gr, group_procs()) were added: every sample's stack
 * under its thread's, in a trie of g's own.
 *
 * Processes share stacks (the same code runs in each), so the group has
 * a stack per (stack, process) pair that samples reach. Looking each pair
 * up in a table, sample by sample and frame by frame, was cache misses
 * one after another. Instead, up to 64 processes at a time: each sample
 * sets its process's bit on its stack, the bits spread to the parents in
 * one pass down the ids, and one pass up makes the group stacks in
 * order, each one's parent found by counting bits, so nothing is looked
 * up; a pass over the samples (on two threads, with threads) then gives
 * each its group stack the same way.
 * Every pass but the last walks arrays in order. Should a process's
 * samples be under a perf process frame and not (or under two), their
 * frames meet under its root, which is no longer a plain copy of ps's
 * stacks: the group is then interned frame by frame
 * (builder_roots_profile()). With marks (ps's outermost marks), the
 * group's are made on the way (g->marks). Only reads ps: it may run on
 * a thread of its own while nothing changes ps (lens_prepare_group()).
 */
static void
group_fill(struct lens_group *g, struct profile_set *ps, const struct group_procs *gr,
	   const uint64_t *marks, bool threads)
{
	uint32_t nr_procs = gr->nr_procs;
	struct group_pass gp = { .ps = ps, .out = &g->set, .marks = marks, .threads = threads };
	bool interned = false;

	g->stack = xcalloc(ps->nr_profiles + 1, sizeof(*g->stack));
	g->nr_stack = ps->nr_profiles;

	/* Each profile's runs, and where each process's begin, in process order. */
	gp.nr_procs = nr_procs;
	gp.proc_frame = gr->proc_frame;
	gp.runs = xcalloc(ps->nr_profiles + 1, sizeof(*gp.runs));
	gp.first = xcalloc(ps->nr_profiles + 1, sizeof(*gp.first));
	for (size_t pi = 0; pi < ps->nr_profiles; pi++) {
		const struct profile *p = ps->profiles[pi];
		size_t nr;
		struct group_run *r = group_runs(p, gr->proc_of, &nr);
		size_t *at = xcalloc((size_t)nr_procs + 2, sizeof(*at));

		g->stack[pi] = xmalloc(sizeof(**g->stack) * (p->nr_samples + 1));
		for (size_t k = 0; k < nr; k++)
			at[r[k].proc + 2]++;
		for (uint32_t k = 2; k < nr_procs + 2; k++)
			at[k] += at[k - 1];
		gp.runs[pi] = xmalloc(sizeof(**gp.runs) * (nr + 1));
		for (size_t k = 0; k < nr; k++)
			gp.runs[pi][at[r[k].proc + 1]++] = r[k];
		/* at[k] is now where process k's runs begin, at[k + 1] where they end. */
		gp.first[pi] = at;
		free(r);
	}

	/* Scratch in pages of its own, which the group's tree takes after it. */
	gp.at = xgrow_pages(NULL, 0, (size_t)ps->nr_stacks + 1, sizeof(*gp.at));
	memset(gp.at, 0, sizeof(*gp.at) * ((size_t)ps->nr_stacks + 1));
	if (gp.marks) {
		gp.out_marks = xcalloc((size_t)ps->nr_stacks / 64 + 2, sizeof(*gp.out_marks));
		gp.proc_frames = xcalloc((size_t)ps->nr_frames / 8 + 1, 1);
		for (frame_id f = 0; f < ps->nr_frames; f++)
			if (ps->frames[f].flags & FRAME_PROCESS)
				gp.proc_frames[f >> 3] |= (uint8_t)(1 << (f & 7));
	}
	for (uint32_t b = 0; b < nr_procs && !interned; b += 64) {
		uint32_t e = nr_procs - b < 64 ? nr_procs : b + 64;
		uint64_t n;

		if (b)
			memset(gp.at, 0, sizeof(*gp.at) * ps->nr_stacks);
		band_mark(&gp, b, e);
		n = band_spread(&gp);
		interned = n == UINT64_MAX || n + g->set.nr_stacks >= STACK_BUSY - 2;
		if (interned)
			break;
		if (gp.out_marks) {
			size_t words = ((size_t)g->set.nr_stacks + n) / 64 + 1;

			gp.out_marks = xreallocarray(gp.out_marks, words + 1, sizeof(*gp.out_marks));
			memset(gp.out_marks + g->set.nr_stacks / 64 + 1, 0,
			       sizeof(*gp.out_marks) * (words - g->set.nr_stacks / 64));
		}
		band_build(&gp, b, e, n, g->stack);
	}
	if (interned) {
		struct builder_roots *r = builder_roots_new(ps->nr_stacks);

		free(gp.out_marks);
		gp.out_marks = NULL;
		profile_set_view_release(&g->set);
		profile_set_view_init(&g->set, ps);
		profile_set_reserve_stacks(&g->set, ps->nr_stacks + nr_procs);
		for (size_t i = 0; i < ps->nr_profiles; i++)
			builder_roots_profile(r, ps->stacks, ps->frames, &g->set, ps->profiles[i],
					      g->stack[i], thread_root, gr->of_thread);
		builder_roots_free(r);
	}
	g->marks = gp.out_marks;
	for (size_t pi = 0; pi < ps->nr_profiles; pi++) {
		free(gp.runs[pi]);
		free(gp.first[pi]);
	}
	free(gp.runs);
	free(gp.first);
	xfree_pages(gp.at, (size_t)ps->nr_stacks + 1, sizeof(*gp.at));
	free(gp.proc_frames);
}

/* Group ps by process into l->group, now (group_fill()). */
static void
group_build(struct lens *l, struct profile_set *ps)
{
	struct group_procs gr;

	group_procs(ps, &gr);
	/* The frames are all there before any view copies the tables. */
	profile_set_view_init(&l->group.set, ps);
	l->by_process = true;
	l->group.id = ++l->level_builds;
	sync_views(l, ps);
	group_fill(&l->group, ps, &gr, l->set_marks, true);
	group_procs_release(&gr);
}

/* A group by process being made on a thread of its own (lens_prepare_group()). */
struct lens_prep {
	pthread_t thread;
	struct profile_set *ps;
	struct lens_group group;
	struct group_procs procs;
	uint64_t *marks;       /* a copy of the set's outermost marks, or NULL */
	size_t weigh;          /* the profile to weigh, or SIZE_MAX */
};

static void *
prep_run(void *arg)
{
	struct lens_prep *p = arg;

	xheap_huge_pages();
	group_fill(&p->group, p->ps, &p->procs, p->marks, false);
	if (p->weigh < p->ps->nr_profiles) {
		struct lens_group *g = &p->group;
		struct profile q = *p->ps->profiles[p->weigh];

		q.stack = g->stack[p->weigh];
		q.src = NULL;
		g->weights = xmalloc(sizeof(*g->weights) * ((size_t)g->set.nr_stacks + 1));
		g->weights_total = stack_weights(&g->set, &q, NULL, g->weights);
		g->weights_of = p->weigh;
	}
	return NULL;
}

bool
lens_prepare_group(struct lens *l, struct profile_set *ps, const uint64_t *set_marks,
		   size_t weigh)
{
	struct lens_prep *p;

	if (l->by_process || l->kept_group.id || l->prep)
		return false;
	p = xcalloc(1, sizeof(*p));
	p->ps = ps;
	p->weigh = weigh;
	group_procs(ps, &p->procs);
	profile_set_view_init(&p->group.set, ps);
	sync_views(l, ps);
	if (set_marks)
		p->marks = xmemdup(set_marks, sizeof(*p->marks) * ((size_t)ps->nr_stacks / 64 + 1));
	if (pthread_create(&p->thread, NULL, prep_run, p)) {
		/* No thread: the frames stay, and the first grouping builds. */
		profile_set_view_release(&p->group.set);
		group_procs_release(&p->procs);
		free(p->marks);
		free(p);
		return false;
	}
	l->prep = p;
	return true;
}

void
lens_prepare_wait(struct lens *l)
{
	struct lens_prep *p = l->prep;

	if (!p)
		return;
	pthread_join(p->thread, NULL);
	l->prep = NULL;
	/* Nothing else made a group meanwhile: every grouping waits first. */
	if (l->by_process || l->kept_group.id)
		BUG("a group by process made while one was prepared");
	grouped_release(l);
	l->kept_group = p->group;
	l->kept_group.id = ++l->level_builds;
	group_procs_release(&p->procs);
	free(p->marks);
	free(p);
}

bool
lens_preparing(const struct lens *l)
{
	return l->prep != NULL;
}

/* The views of levels, moved to kept (n of them), their texts copied; the levels lose them. */
static struct lens_level *
levels_keep(struct lens_level *levels, uint32_t n)
{
	struct lens_level *kept = xcalloc((size_t)n + 1, sizeof(*kept));

	for (uint32_t i = 0; i < n; i++) {
		struct lens_level *lv = &levels[i], *u = &kept[i];

		*u = *lv;
		u->t.arg = xstrdup(lv->t.arg);
		u->re = NULL;
		memset(&lv->view, 0, sizeof(lv->view));
		lv->map = NULL;
		lv->outermost = NULL;
	}
	return kept;
}

/*
 * The kept levels take their places again as far as the transforms are
 * still those they were built for: returns how many did. The kept ones
 * are left empty, for their owner to release.
 */
static uint32_t
levels_take(struct lens *l, struct lens_level *kept, uint32_t nr_kept)
{
	uint32_t i;

	for (i = 0; i < l->nr_levels && i < nr_kept; i++) {
		struct lens_level *lv = &l->levels[i], *u = &kept[i];

		if (lv->t.kind != u->t.kind || strcmp(lv->t.arg, u->t.arg))
			break;
		profile_set_view_release(&lv->view);
		free(lv->map);
		free(lv->outermost);
		lv->view = u->view;
		lv->map = u->map;
		lv->outermost = u->outermost;
		lv->kept_stacks = u->kept_stacks;
		lv->id = u->id;
		memset(&u->view, 0, sizeof(u->view));
		u->map = NULL;
		u->outermost = NULL;
	}
	return i;
}

/* Grouping: the levels over ps's own stacks are kept for ungrouping (lens.ungrouped). */
static void
ungrouped_keep(struct lens *l)
{
	ungrouped_release(l);
	l->ungrouped = levels_keep(l->levels, l->nr_levels);
	l->nr_ungrouped = l->nr_levels;
}

/*
 * Ungrouping: the levels kept take their places again as far as the
 * transforms are still those they were built for; the rest are built.
 */
static void
ungrouped_take(struct lens *l, struct profile_set *ps)
{
	uint32_t i = levels_take(l, l->ungrouped, l->nr_ungrouped);

	ungrouped_release(l);
	for (; i < l->nr_levels; i++)
		build_level(l, ps, i);
}

/*
 * Ungrouping: the group and the levels over it are kept for grouping
 * again (lens.kept_group, lens.grouped), in place of the last ones kept.
 */
static void
grouped_keep(struct lens *l)
{
	kept_release(l);
	l->grouped = levels_keep(l->levels, l->nr_levels);
	l->nr_grouped = l->nr_levels;
	if (l->set_marks == l->group.marks)
		l->set_marks = NULL;
	l->kept_group = l->group;
	memset(&l->group, 0, sizeof(l->group));
	l->by_process = false;
}

/*
 * Grouping again: the kept group takes its place, and its levels theirs
 * as far as the transforms are the same; the rest are built. False when
 * none is kept for ps.
 */
static bool
grouped_take(struct lens *l, struct profile_set *ps)
{
	uint32_t i;

	if (!l->kept_group.id || l->kept_group.nr_stack != ps->nr_profiles) {
		kept_release(l);
		return false;
	}
	l->group = l->kept_group;
	memset(&l->kept_group, 0, sizeof(l->kept_group));
	l->by_process = true;
	profile_set_view_sync(&l->group.set, ps);
	l->set_marks = l->group.marks;
	i = levels_take(l, l->grouped, l->nr_grouped);
	grouped_release(l);
	for (; i < l->nr_levels; i++)
		build_level(l, ps, i);
	return true;
}

bool
lens_set_by_process(struct lens *l, struct profile_set *ps, bool on)
{
	lens_prepare_wait(l);
	if (on == l->by_process)
		return false;
	if (on) {
		ungrouped_keep(l);
		if (!grouped_take(l, ps)) {
			group_build(l, ps);
			l->set_marks = l->group.marks;
			levels_build(l, ps);
		}
	} else {
		grouped_keep(l);
		ungrouped_take(l, ps);
	}
	return true;
}

uint64_t
lens_fold_weights(const struct lens *l, const struct profile_set *ps, const uint64_t *w,
		  uint64_t *out)
{
	const struct profile_set *view = lens_view(l, ps), *base = lens_base(l, ps);
	const stack_id *map = lens_map(l);
	uint64_t sum = 0;

	if (!map) {
		memcpy(out, w, sizeof(*out) * base->nr_stacks);
		for (stack_id s = 0; s < base->nr_stacks; s++)
			sum += w[s];
		return sum;
	}
	memset(out, 0, sizeof(*out) * view->nr_stacks);
	for (stack_id s = 0; s < base->nr_stacks; s++) {
		stack_id v = map[s];

		if (v == LENS_DROPPED || v == STACK_ROOT || !w[s])
			continue;
		out[v] += w[s];
		sum += w[s];
	}
	return sum;
}

/*
 * Keep the samples of p whose stack the map (NULL: none) keeps, with their
 * view stack, and in l's time range.
 */
static void
bake_profile(const struct lens *l, struct profile *p, const stack_id *map)
{
	size_t j = 0;
	weight_sum total = 0; /* exact, as the profile's */
	bool first = true;

	for (size_t i = 0; i < p->nr_samples; i++) {
		stack_id v = map ? map[p->stack[i]] : p->stack[i];

		if (l->timed && (p->time[i] < l->t0 || p->time[i] >= l->t1))
			continue;
		if (map && (v == LENS_DROPPED || v == STACK_ROOT))
			continue;
		p->stack[j] = v;
		p->weight[j] = p->weight[i];
		p->time[j] = p->time[i];
		p->thread[j] = p->thread[i];
		total += p->weight[j];
		if (p->has_time) {
			int64_t end = p->spans ? profile_span_end(p->time[j], p->weight[j])
					       : p->time[j];

			if (first || p->time[j] < p->time_min)
				p->time_min = p->time[j];
			if (first || end > p->time_max)
				p->time_max = end;
			first = false;
		}
		j++;
	}
	p->nr_samples = j;
	p->total_weight = total;
	/* The recorded figures describe the samples before the transforms. */
	profile_drop_figures(p);
}

void
lens_bake(struct lens *l, struct profile_set *ps)
{
	const stack_id *map = lens_map(l);

	lens_prepare_wait(l);
	if (!map && !l->timed && !l->by_process)
		return;
	for (size_t i = 0; i < ps->nr_profiles; i++) {
		struct profile *p = ps->profiles[i];

		/* Grouped, the maps are of the group's stacks: the samples take theirs. */
		if (l->by_process)
			memcpy(p->stack, l->group.stack[i], sizeof(*p->stack) * p->nr_samples);
		bake_profile(l, p, map);
	}
	l->timed = false;
	if (map)
		profile_set_swap_stacks(ps, &l->levels[l->nr_levels - 1].view);
	else if (l->by_process)
		profile_set_swap_stacks(ps, &l->group.set);
	/* The views, and any group kept, are of the stacks ps just gave away. */
	lens_clear_transforms(l);
	group_release(l);
	kept_release(l);
}

/* ------------------------------------------------------------------ text */

void
lens_path_text(const struct profile_set *set, stack_id s, struct strbuf *out)
{
	uint32_t depth = set->stacks[s].depth;
	stack_id *path = xmalloc(sizeof(*path) * ((size_t)depth + 1));

	for (uint32_t i = depth; i-- > 0; s = set->stacks[s].parent)
		path[i] = s;
	for (uint32_t i = 0; i < depth; i++) {
		if (i)
			strbuf_addch(out, ';');
		strbuf_addstr(out, ps_get(set, set->frames[set->stacks[path[i]].frame].name));
	}
	free(path);
}

void
lens_quote_name(const char *name, struct strbuf *out)
{
	/* \Q...\E quotes all but "\E" itself, which ends one quote and opens another. */
	strbuf_addstr(out, "^\\Q");
	for (const char *p = name; *p; p++) {
		if (p[0] == '\\' && p[1] == 'E') {
			strbuf_addstr(out, "\\E\\\\E\\Q");
			p++;
			continue;
		}
		strbuf_addch(out, *p);
	}
	strbuf_addstr(out, "\\E$");
}

/* A regex of lens_quote_name() as the name it quotes; any other as it is. */
static void
describe_arg(const char *arg, struct strbuf *out)
{
	size_t len = strlen(arg);

	if (len >= 6 && !strncmp(arg, "^\\Q", 3) && !strcmp(arg + len - 3, "\\E$")) {
		const char *end = arg + len - 3;
		const char *inner = strstr(arg + 3, "\\E");

		if (inner == end) {
			strbuf_add(out, arg + 3, (size_t)(end - arg - 3));
			return;
		}
	}
	strbuf_addstr(out, arg);
}

void
lens_describe(const struct lens *l, struct strbuf *out)
{
	if (l->by_process)
		strbuf_addstr(out, "by process");
	for (uint32_t i = 0; i < l->nr_levels; i++) {
		const struct lens_transform *t = &l->levels[i].t;

		if (i || l->by_process)
			strbuf_addstr(out, " > ");
		strbuf_addstr(out, lens_kind_ops(t->kind)->crumb);
		strbuf_addch(out, ' ');
		describe_arg(t->arg, out);
	}
}

void
lens_write(const struct lens *l, struct strbuf *out)
{
	strbuf_addstr(out, "# tflame lens: one transform a line, KIND:ARG\n");
	if (l->by_process)
		strbuf_addstr(out, LENS_BY_PROCESS_LINE "\n");
	for (uint32_t i = 0; i < l->nr_levels; i++) {
		const struct lens_transform *t = &l->levels[i].t;

		strbuf_addf(out, "%s:%s\n", lens_kind_ops(t->kind)->name, t->arg);
	}
}

int
lens_parse_transform(const char *text, enum lens_kind *kind, const char **arg,
		     struct tf_error *err)
{
	const char *colon = strchr(text, ':');
	char name[64];
	size_t len;

	if (!colon)
		return tf_error_set(err, "'%s' is not KIND:ARG", text);
	len = (size_t)(colon - text);
	if (len >= sizeof(name) || (memcpy(name, text, len), name[len] = 0,
				    !lens_kind_find(name, kind))) {
		struct strbuf sb = STRBUF_INIT;

		for (int k = 0; k < LENS_NR_KINDS; k++)
			strbuf_addf(&sb, "%s%s", k ? ", " : "", kinds[k].name);
		tf_error_set(err, "unknown transform '%.*s' (transforms: %s)", (int)len, text,
			     sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	*arg = colon + 1;
	return 0;
}

/* ----------------------------------------------------------------- check */

/* Whether a is b or one of b's callers in set. O(depth): for checks only. */
static bool
is_ancestor(const struct profile_set *set, stack_id a, stack_id b)
{
	while (set->stacks[b].depth > set->stacks[a].depth)
		b = set->stacks[b].parent;
	return a == b;
}

/* What one transform made of input stack t given its parent's (see check_level()). */
static int
check_pair(const struct profile_set *in, const struct profile_set *v, uint32_t i, stack_id t,
	   stack_id o, stack_id po, struct tf_error *err)
{
	if (o == LENS_DROPPED)
		return 0;
	if (o >= v->nr_stacks || po == LENS_DROPPED)
		return tf_error_set(err, "transform %u: stack %u maps to %u, its parent to %u", i, t,
				    o, po);
	/* No transform lengthens a stack: frames go or are replaced. */
	if (v->stacks[o].depth > in->stacks[t].depth)
		return tf_error_set(err, "transform %u: stack %u maps to a deeper %u", i, t, o);
	/*
	 * What a transform may do to a stack given its parent's view: keep
	 * or replace its frame below it, merge it into it, fold it into one
	 * of its callers (collapse), give it back frames its parent lost
	 * (focus-function-inverted), or start a root (focus): its view and
	 * its parent's are on one path, or it is a root's child. Under an
	 * empty parent (focus has not begun), the kind decides alone.
	 */
	if (po != STACK_ROOT && v->stacks[o].parent != STACK_ROOT && !is_ancestor(v, o, po) &&
	    !is_ancestor(v, po, o))
		return tf_error_set(err, "transform %u: stack %u maps to %u, not under its "
				    "parent's %u", i, t, o, po);
	return 0;
}

/*
 * Level i over its input in (the view below, or base: the set's stacks,
 * or grouped by process): its map from base's stacks must go through
 * the map below (below NULL: the identity), and what it makes of each
 * input stack, as far as base's stacks reach them, must be what one
 * pass may make of it given its parent. The rules hold for one
 * transform, not for the composed map: a collapse below folds A F B F
 * into A F, so dropping B above drops A F B but not A F B F.
 */
static int
check_level(const struct lens_level *lv, const struct profile_set *ps,
	    const struct profile_set *base, const struct profile_set *in, const stack_id *below,
	    uint32_t i, bool kept_level, struct tf_error *err)
{
	const struct profile_set *v = &lv->view;
	stack_id *img;
	uint64_t kept = 0;
	int ret = 0;

	if (!lv->map || !v->stacks || v->frames != ps->frames || v->nr_frames != ps->nr_frames)
		return tf_error_set(err, "transform %u: a view not of the set", i);
	/* A level kept for ungrouping has no regex of its own: its transform's is above. */
	if (kept_level ? lv->re != NULL
		       : (lv->re == NULL) != (lens_kind_ops(lv->t.kind)->arg == LENS_ARG_PATH))
		return tf_error_set(err, "transform %u: a regex where it takes none", i);
	if (profile_set_check(v, err))
		return -1;
	if (lv->map[STACK_ROOT] != STACK_ROOT)
		return tf_error_set(err, "transform %u: the root does not map to the root", i);
	/* img[t]: what the level made of input stack t, UINT32_MAX - 1 if unseen. */
	img = xmalloc(sizeof(*img) * ((size_t)in->nr_stacks + 1));
	for (stack_id t = 0; t < in->nr_stacks; t++)
		img[t] = UINT32_MAX - 1;
	for (stack_id s = 0; s < base->nr_stacks && !ret; s++) {
		stack_id t = below ? below[s] : s, o = lv->map[s];

		if (t == LENS_DROPPED) {
			if (o != LENS_DROPPED)
				ret = tf_error_set(err, "transform %u: stack %u dropped below, not "
						   "here", i, s);
			continue;
		}
		if (t >= in->nr_stacks || (img[t] != UINT32_MAX - 1 && img[t] != o))
			ret = tf_error_set(err, "transform %u: stack %u maps to %u, not through "
					   "the map below", i, s, o);
		img[t] = o;
		kept += o != LENS_DROPPED && o != STACK_ROOT;
	}
	for (stack_id t = 1; t < in->nr_stacks && !ret; t++) {
		stack_id pt = in->stacks[t].parent;

		if (img[t] != UINT32_MAX - 1 && img[pt] != UINT32_MAX - 1)
			ret = check_pair(in, v, i, t, img[t], img[pt], err);
	}
	free(img);
	if (ret)
		return ret;
	if (kept != lv->kept_stacks)
		return tf_error_set(err, "transform %u: %llu stacks kept, %llu counted", i,
				    (unsigned long long)kept,
				    (unsigned long long)lv->kept_stacks);
	if (!lv->id)
		return tf_error_set(err, "transform %u: a level with no id", i);
	/* The marks made in the pass, against the view's paths walked one by one. */
	for (stack_id o = 1; lv->outermost && o < v->nr_stacks; o++) {
		bool outer = true;

		for (stack_id p = v->stacks[o].parent; p != STACK_ROOT && outer;
		     p = v->stacks[p].parent)
			outer = !one_func(v, v->stacks[p].frame, v->stacks[o].frame);
		if (outer != bit_get(lv->outermost, o))
			return tf_error_set(err, "transform %u: view stack %u %s outermost", i, o,
					    outer ? "is, not marked" : "is not, yet marked");
	}
	return 0;
}

/*
 * Each sample's group stack is a process frame, then the frames of its
 * stack in ps (less a perf process frame at its root), in order. O(depth)
 * a sample: for checks only.
 */
static int
check_group(const struct lens_group *grp, const struct profile_set *ps, struct tf_error *err)
{
	const struct profile_set *g = &grp->set;

	if (g->frames != ps->frames || g->nr_frames != ps->nr_frames ||
	    grp->nr_stack != ps->nr_profiles)
		return tf_error_set(err, "a group by process not of the set");
	if (profile_set_check(g, err))
		return -1;
	for (size_t pi = 0; pi < ps->nr_profiles; pi++) {
		const struct profile *p = ps->profiles[pi];

		for (size_t i = 0; i < p->nr_samples; i++) {
			stack_id s = p->stack[i], o = grp->stack[pi][i];

			if (o == STACK_ROOT || o >= g->nr_stacks)
				return tf_error_set(err, "profile %zu sample %zu: group stack %u",
						    pi, i, o);
			for (; g->stacks[o].parent != STACK_ROOT; o = g->stacks[o].parent) {
				if (s == STACK_ROOT || ps->stacks[s].frame != g->stacks[o].frame)
					return tf_error_set(err, "profile %zu sample %zu: group "
							    "stack of other frames", pi, i);
				s = ps->stacks[s].parent;
			}
			if (s != STACK_ROOT && (ps->stacks[s].parent != STACK_ROOT ||
						!(ps->frames[ps->stacks[s].frame].flags &
						  FRAME_PROCESS)))
				return tf_error_set(err, "profile %zu sample %zu: group stack "
						    "short of frames", pi, i);
			if (!(ps->frames[g->stacks[o].frame].flags & FRAME_PROCESS))
				return tf_error_set(err, "profile %zu sample %zu: no process at "
						    "the root", pi, i);
		}
	}
	return 0;
}

int
lens_check(const struct lens *l, const struct profile_set *ps, struct tf_error *err)
{
	if (l->nr_levels > l->alloc_levels || l->nr_redo > l->alloc_redo)
		return tf_error_set(err, "lens arrays overrun");
	if (l->profile >= ps->nr_profiles)
		return tf_error_set(err, "profile %zu of %zu", l->profile, ps->nr_profiles);
	if (l->by_process && check_group(&l->group, ps, err))
		return -1;
	if (l->nr_ungrouped && !l->by_process)
		return tf_error_set(err, "levels kept for ungrouping, ungrouped");
	if ((l->kept_group.id || l->nr_grouped) && l->by_process)
		return tf_error_set(err, "a group kept for grouping, grouped");
	if (l->nr_grouped && !l->kept_group.id)
		return tf_error_set(err, "levels kept for grouping with no group");
	if (l->kept_group.id && check_group(&l->kept_group, ps, err))
		return -1;
	/* The levels kept for ungrouping, each over the one below, over ps. */
	for (uint32_t i = 0; i < l->nr_ungrouped; i++) {
		const struct lens_level *below = i ? &l->ungrouped[i - 1] : NULL;

		if (check_level(&l->ungrouped[i], ps, ps, below ? &below->view : ps,
				below ? below->map : NULL, i, true, err))
			return -1;
	}
	/* The levels kept for grouping again, each over the one below, over the kept group. */
	for (uint32_t i = 0; i < l->nr_grouped; i++) {
		const struct lens_level *below = i ? &l->grouped[i - 1] : NULL;

		if (check_level(&l->grouped[i], ps, &l->kept_group.set,
				below ? &below->view : &l->kept_group.set, below ? below->map : NULL,
				i, true, err))
			return -1;
	}
	for (uint32_t i = 0; i < l->nr_levels; i++) {
		const struct lens_level *below = i ? &l->levels[i - 1] : NULL;
		const struct profile_set *base = lens_base(l, ps);

		if (check_level(&l->levels[i], ps, base, below ? &below->view : base,
				below ? below->map : NULL, i, false, err))
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ time */

/*
 * One end of a range, as text: seconds ("1.5") or a share ("10%"), into
 * *v (the number, of seconds or percent) and *share; empty is *empty. Decimal,
 * as perf report --time writes it. False if it is neither.
 */
static bool
parse_time_value(const char *s, size_t len, double *v, bool *share, bool *empty)
{
	char buf[64], *end;

	*empty = !len;
	*share = false;
	*v = 0;
	if (!len)
		return true;
	*share = s[len - 1] == '%';
	if (*share)
		len--;
	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '.'))
		return false;
	*v = strtod(buf, &end);
	return !*end && *v >= 0 && *v == *v && !(*share && *v > 100) && *v <= 9.2e9;
}

/* Both ends of text as parse_time_value() reads them; false if one is bad. */
static bool
parse_time_text(const char *text, double v[2], bool share[2], bool empty[2])
{
	const char *comma = strchr(text, ',');

	return comma &&
	       parse_time_value(text, (size_t)(comma - text), &v[0], &share[0], &empty[0]) &&
	       parse_time_value(comma + 1, strlen(comma + 1), &v[1], &share[1], &empty[1]);
}

int
lens_check_time(const char *text, struct tf_error *err)
{
	double v[2];
	bool share[2], empty[2];

	if (!parse_time_text(text, v, share, empty))
		return tf_error_set(err, "'%s' is not START,END (seconds, or percentages)",
				    text);
	/* Seconds against a share needs the profile's span: lens_parse_time(). */
	if (!empty[0] && !empty[1] && share[0] == share[1] && v[0] >= v[1])
		return tf_error_set(err, "'%s': the range ends before it starts", text);
	return 0;
}

int
lens_parse_time(const char *text, const struct profile *p, int64_t *t0, int64_t *t1,
		struct tf_error *err)
{
	double v[2], at[2];
	bool share[2], empty[2];
	uint64_t span;

	if (!p->has_time)
		return tf_error_set(err, "the profile has no times to take a range of");
	if (lens_check_time(text, err))
		return -1;
	parse_time_text(text, v, share, empty);
	span = (uint64_t)p->time_max - (uint64_t)p->time_min;
	/* Nanoseconds from the start, before they are cut to the span. */
	for (int i = 0; i < 2; i++)
		at[i] = empty[i]   ? (i ? (double)span : 0)
			: share[i] ? v[i] / 100.0 * (double)span
				   : v[i] * 1e9;
	if (!empty[0] && !empty[1] && at[0] >= at[1])
		return tf_error_set(err, "'%s': the range ends before it starts", text);
	if (at[0] > (double)span)
		return tf_error_set(err, "'%s' starts after the profile ends (%.6f s from its "
				    "start)", text, (double)span / 1e9);
	*t0 = p->time_min + (int64_t)at[0];
	/* The end is exclusive: the profile's end includes its last sample. */
	if (at[1] >= (double)span)
		*t1 = p->time_max == INT64_MAX ? INT64_MAX : p->time_max + 1;
	else
		*t1 = p->time_min + (int64_t)at[1];
	if (*t0 >= *t1)
		return tf_error_set(err, "'%s': the range ends before it starts", text);
	return 0;
}

/* ------------------------------------------------------------------ spec */

void
lens_spec_release(struct lens_spec *spec)
{
	free(spec->tids);
	free(spec->pids);
	free(spec->transforms);
	spec->tids = spec->pids = NULL;
	spec->transforms = NULL;
	spec->nr_tids = spec->nr_pids = spec->alloc_tids = spec->alloc_pids = 0;
	spec->nr_transforms = spec->alloc_transforms = 0;
}

bool
lens_spec_filters_threads(const struct lens_spec *spec)
{
	return spec->nr_tids || spec->nr_pids || spec->comm;
}
