#include "config.h"

#include "tflame/builder.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/hash.h"
#include "tflame/xalloc.h"

void
builder_init(struct builder *b, struct profile_set *ps)
{
	memset(b, 0, sizeof(*b));
	b->ps = ps;
	b->thread = THREAD_NONE;
}

static void
path_release(struct builder_path *path)
{
	free(path->frames);
	free(path->stacks);
}

void
builder_release(struct builder *b)
{
	if (b->nr_split && b->ps)
		profile_set_warn(b->ps, 0,
				 "%" PRIu64 " sample weight%s past 64 bits, each kept exactly "
				 "as several samples of its stack",
				 b->nr_split, b->nr_split == 1 ? "" : "s");
	free(b->frames);
	free(b->chain);
	path_release(&b->path);
	for (size_t i = 0; i < BUILDER_OTHER_PATHS; i++)
		path_release(&b->other[i]);
	memset(b, 0, sizeof(*b));
}

void
builder_begin_sample(struct builder *b, struct profile *p, thread_id thread,
		     uint64_t weight, int64_t time, bool has_time)
{
	b->profile = p;
	b->thread = thread;
	b->weight = weight;
	b->weight_rest = 0;
	b->time = time;
	b->has_time = has_time;
	b->nr_frames = 0;
}

void
builder_begin_sample_sum(struct builder *b, struct profile *p, thread_id thread,
			 weight_sum weight, int64_t time, bool has_time)
{
	if (weight > BUILDER_MAX_WEIGHT)
		BUG("a sample weight past BUILDER_MAX_WEIGHT");
	builder_begin_sample(b, p, thread, weight > WEIGHT_MAX ? WEIGHT_MAX : (uint64_t)weight,
			     time, has_time);
	b->weight_rest = weight > WEIGHT_MAX ? weight - WEIGHT_MAX : 0;
}

void
builder_push_frame(struct builder *b, frame_id frame)
{
	ALLOC_GROW(b->frames, b->nr_frames, b->alloc_frames);
	b->frames[b->nr_frames++] = frame;
}

/*
 * A sample under another outermost frame than the last one: keep the
 * last path among the others and take the one under root, if kept
 * (else an empty one). Swapping the arrays copies nothing.
 */
static struct builder_path *
switch_path(struct builder *b, frame_id root)
{
	struct builder_path *old = &b->other[b->path.frames[0] % BUILDER_OTHER_PATHS];
	struct builder_path *want = &b->other[root % BUILDER_OTHER_PATHS], t;

	/* The last path goes to its slot, what was there to the current one ... */
	t = *old;
	*old = b->path;
	b->path = t;
	/* ... and the path under root comes out of its slot, if it is there. */
	if (want->len && want->frames[0] == root) {
		t = *want;
		*want = b->path;
		b->path = t;
	} else {
		b->path.len = 0;
	}
	return &b->path;
}

/*
 * Count a sample about to be added; true if max_samples drops it (the
 * first one dropped adds the warning).
 */
static bool
count_sample(struct builder *b)
{
	if (builder_full(b)) {
		if (b->nr_samples++ == b->max_samples)
			profile_set_warn(b->ps, 0, "stopped after %" PRIu64 " samples (--max-samples)",
					 b->max_samples);
		return true;
	}
	b->nr_samples++;
	return false;
}

int
builder_end_sample(struct builder *b, enum builder_order order, struct tf_error *err)
{
	stack_id s = STACK_ROOT;
	struct profile *p = b->profile;
	struct builder_path *path = &b->path;
	size_t n = b->nr_frames, i = 0;

	if (!p)
		BUG("builder_end_sample() with no open sample");
	if (count_sample(b)) {
		b->profile = NULL;
		b->nr_frames = 0;
		return 0;
	}
	if (n && path->len) {
		frame_id root = b->frames[order == BUILDER_ROOT_FIRST ? 0 : n - 1];

		if (path->frames[0] != root)
			path = switch_path(b, root);
	}
	if (n > path->alloc) {
		path->alloc = n > 2 * path->alloc ? n : 2 * path->alloc;
		path->frames = xreallocarray(path->frames, path->alloc, sizeof(frame_id));
		path->stacks = xreallocarray(path->stacks, path->alloc, sizeof(stack_id));
	}
	for (; i < n; i++) {
		frame_id f = b->frames[order == BUILDER_ROOT_FIRST ? i : n - 1 - i];

		if (i < path->len && path->frames[i] == f) {
			s = path->stacks[i];
			continue;
		}
		/* Past the shared prefix: intern, and remember for the next sample. */
		path->len = i;
		s = profile_set_stack(b->ps, s, f);
		path->frames[i] = f;
		path->stacks[i] = s;
	}
	path->len = n;
	b->profile = NULL;
	b->nr_frames = 0;
	if (profile_add_sample(p, s, b->weight, b->time, b->has_time, b->thread, err))
		return -1;
	/* A weight past 64 bits: the rest in pieces of the same stack. */
	if (b->weight_rest)
		b->nr_split++;
	while (b->weight_rest) {
		uint64_t w = b->weight_rest > WEIGHT_MAX ? WEIGHT_MAX : (uint64_t)b->weight_rest;

		b->weight_rest -= w;
		if (profile_add_sample(p, s, w, b->time, b->has_time, b->thread, err))
			return -1;
	}
	return 0;
}

int
builder_add_stack_sample(struct builder *b, struct profile *p, thread_id thread,
			 uint64_t weight, int64_t time, bool has_time, stack_id stack,
			 struct tf_error *err)
{
	if (b->profile)
		BUG("builder_add_stack_sample() with a sample open");
	if (count_sample(b))
		return 0;
	return profile_add_sample(p, stack, weight, time, has_time, thread, err);
}

/*
 * builder_add_roots()'s memo: (old stack, root frame) -> new stack, open
 * addressing on the packed pair; a value of STACK_ROOT is an empty slot
 * (a new stack holds at least the root frame).
 */
struct root_memo {
	uint64_t *keys;
	stack_id *vals;
	size_t mask, nr;
};

static inline uint64_t
root_key(stack_id s, frame_id root)
{
	return (uint64_t)root << 32 | s;
}

static stack_id
root_memo_get(const struct root_memo *m, uint64_t key)
{
	for (size_t i = hash_u64(key) & m->mask;; i = (i + 1) & m->mask) {
		if (m->vals[i] == STACK_ROOT)
			return STACK_ROOT;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static void
root_memo_put(struct root_memo *m, uint64_t key, stack_id val)
{
	size_t i;

	if (2 * (m->nr + 1) > m->mask + 1) {
		struct root_memo n = { NULL, NULL, 2 * m->mask + 1, 0 };

		n.keys = xmalloc(sizeof(*n.keys) * (n.mask + 1));
		n.vals = xzalloc_table(n.mask + 1, sizeof(*n.vals));
		for (size_t k = 0; k <= m->mask; k++)
			if (m->vals[k] != STACK_ROOT)
				root_memo_put(&n, m->keys[k], m->vals[k]);
		free(m->keys);
		free(m->vals);
		*m = n;
	}
	for (i = hash_u64(key) & m->mask; m->vals[i] != STACK_ROOT; i = (i + 1) & m->mask)
		;
	m->keys[i] = key;
	m->vals[i] = val;
	m->nr++;
}

/*
 * Most old stacks are under one root only (a call path is one process's),
 * so each old stack's first (root, new stack) is in arrays by old stack,
 * and only the others go through the hash: a sample's walk up its stack
 * then mostly reads arrays, where probing a table of millions missed the
 * cache at every step.
 */
struct builder_roots {
	frame_id *first_root; /* per old stack: the root it was first under, or FRAME_NONE */
	stack_id *first;      /* its new stack there */
	uint32_t nr_old;
	struct root_memo memo; /* the other pairs */
	stack_id *path;
	size_t alloc_path;
};

struct builder_roots *
builder_roots_new(uint32_t nr_old)
{
	struct builder_roots *r = xcalloc(1, sizeof(*r));

	r->nr_old = nr_old;
	r->first_root = xmalloc(sizeof(*r->first_root) * ((size_t)nr_old + 1));
	r->first = xmalloc(sizeof(*r->first) * ((size_t)nr_old + 1));
	for (uint32_t i = 0; i < nr_old; i++)
		r->first_root[i] = FRAME_NONE;
	r->memo.mask = 1023;
	r->memo.keys = xmalloc(sizeof(*r->memo.keys) * (r->memo.mask + 1));
	r->memo.vals = xzalloc_table(r->memo.mask + 1, sizeof(*r->memo.vals));
	return r;
}

void
builder_roots_free(struct builder_roots *r)
{
	if (!r)
		return;
	free(r->first_root);
	free(r->first);
	free(r->memo.keys);
	free(r->memo.vals);
	free(r->path);
	free(r);
}

/* Old stack o's new stack under root fr, or STACK_ROOT if not made yet. */
static inline stack_id
roots_get(const struct builder_roots *r, stack_id o, frame_id fr)
{
	if (r->first_root[o] == fr)
		return r->first[o];
	if (r->first_root[o] == FRAME_NONE)
		return STACK_ROOT;
	return root_memo_get(&r->memo, root_key(o, fr));
}

static inline void
roots_put(struct builder_roots *r, stack_id o, frame_id fr, stack_id s)
{
	if (r->first_root[o] == FRAME_NONE) {
		r->first_root[o] = fr;
		r->first[o] = s;
	} else {
		root_memo_put(&r->memo, root_key(o, fr), s);
	}
}

/* Whether old stack o is an outermost process frame that replace drops. */
static inline bool
replaced_root(const struct stack_node *old, const struct frame *replace, stack_id o)
{
	return replace && old[o].parent == STACK_ROOT &&
	       (replace[old[o].frame].flags & FRAME_PROCESS);
}

void
builder_roots_profile(struct builder_roots *r, const struct stack_node *old,
		      const struct frame *replace, struct profile_set *out,
		      const struct profile *p, stack_id *dst, builder_root_fn *root, void *ctx)
{
	stack_id last_old = STACK_ROOT, last_new = STACK_ROOT;
	thread_id last_thread = THREAD_NONE;
	frame_id fr = FRAME_NONE, last_r = FRAME_NONE;

	for (size_t i = 0; i < p->nr_samples; i++) {
		stack_id s = p->stack[i], o, cur = STACK_ROOT;
		size_t n = 0;

		if (p->thread[i] != last_thread) {
			last_thread = p->thread[i];
			fr = root(ctx, last_thread);
		}
		/* Runs of one stack and one thread are the common case. */
		if (s == last_old && fr == last_r && last_new != STACK_ROOT) {
			dst[i] = last_new;
			continue;
		}
		/* Up to the nearest old stack done already, or the root ... */
		for (o = s; o != STACK_ROOT && !replaced_root(old, replace, o);
		     o = old[o].parent) {
			if (o >= r->nr_old)
				BUG("stack %u of %u old ones", o, r->nr_old);
			cur = roots_get(r, o, fr);
			if (cur != STACK_ROOT)
				break;
			ALLOC_GROW(r->path, n, r->alloc_path);
			r->path[n++] = o;
		}
		if (o == STACK_ROOT || replaced_root(old, replace, o)) {
			/* The roots themselves: few, in the hash. */
			cur = root_memo_get(&r->memo, root_key(STACK_ROOT, fr));
			if (cur == STACK_ROOT) {
				cur = profile_set_stack(out, STACK_ROOT, fr);
				root_memo_put(&r->memo, root_key(STACK_ROOT, fr), cur);
			}
		}
		/* ... then down again, each old frame under the new root. */
		while (n > 0) {
			o = r->path[--n];
			cur = profile_set_stack(out, cur, old[o].frame);
			roots_put(r, o, fr, cur);
		}
		last_old = s;
		last_r = fr;
		last_new = cur;
		dst[i] = cur;
	}
}

void
builder_add_roots(struct builder *b, builder_root_fn *root, void *ctx)
{
	struct profile_set *ps = b->ps;
	struct builder_roots *r = builder_roots_new(ps->nr_stacks);
	struct stack_node *old = xmemdup(ps->stacks, sizeof(*old) * ps->nr_stacks);

	profile_set_clear_stacks(ps);
	b->path.len = 0;
	for (size_t i = 0; i < BUILDER_OTHER_PATHS; i++)
		b->other[i].len = 0;
	for (size_t pi = 0; pi < ps->nr_profiles; pi++) {
		struct profile *p = ps->profiles[pi];

		builder_roots_profile(r, old, NULL, ps, p, p->stack, root, ctx);
	}
	free(old);
	builder_roots_free(r);
}

/* A part's remainder while apportioning, and its index for ties. */
struct rest {
	uint64_t r;
	size_t i;
};

static int
cmp_rest(const void *a, const void *b)
{
	const struct rest *x = a, *y = b;

	if (x->r != y->r)
		return x->r > y->r ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

void
builder_apportion(uint64_t w, const uint64_t *share, size_t n, uint64_t *out)
{
	hash_u128 sum = 0;
	uint64_t given = 0, left;
	struct rest *rest;
	size_t nr = 0;
	unsigned shift = 0;

	for (size_t i = 0; i < n; i++)
		sum += share[i];
	/* Remainders are below sum: shifted by this much they fit 64 bits. */
	while (sum >> shift > UINT64_MAX)
		shift++;
	if (!sum) {
		memset(out, 0, sizeof(*out) * n);
		return;
	}
	rest = xmalloc(sizeof(*rest) * (n + 1));
	for (size_t i = 0; i < n; i++) {
		hash_u128 x = (hash_u128)w * share[i];

		out[i] = (uint64_t)(x / sum);
		given += out[i];
		/* All over the same sum: comparing remainders compares fractions. */
		if (share[i])
			rest[nr++] = (struct rest){ (uint64_t)((x % sum) >> shift), i };
	}
	/* Fewer than n units are left: each part rounded down by less than one. */
	left = w - given;
	if (left) {
		qsort(rest, nr, sizeof(*rest), cmp_rest);
		for (size_t k = 0; k < nr && left; k++, left--)
			out[rest[k].i]++;
	}
	free(rest);
}

frame_id
name_frames_get(struct name_frames *nf, struct profile_set *ps, str_id name, str_id module)
{
	struct frame fr;
	frame_id id;

	if (name < nf->alloc && nf->frame_of[name])
		return nf->frame_of[name] - 1;
	if (name >= nf->alloc) {
		size_t n = nf->alloc ? nf->alloc * 2 : 1024;

		while (n <= name)
			n *= 2;
		nf->frame_of = xreallocarray(nf->frame_of, n, sizeof(*nf->frame_of));
		memset(nf->frame_of + nf->alloc, 0, (n - nf->alloc) * sizeof(*nf->frame_of));
		nf->alloc = n;
	}
	memset(&fr, 0, sizeof(fr));
	fr.name = name;
	fr.module = module;
	fr.file = STR_EMPTY;
	id = profile_set_frame(ps, &fr);
	nf->frame_of[name] = id + 1;
	return id;
}

void
name_frames_release(struct name_frames *nf)
{
	free(nf->frame_of);
	nf->frame_of = NULL;
	nf->alloc = 0;
}

stack_id
builder_tree_stack(struct builder *b, const struct builder_tree_node *nodes, stack_id *memo,
		   size_t i)
{
	size_t n = 0;
	uint32_t at = (uint32_t)i + 1;
	stack_id s;

	/* Up to the nearest node known (or above the root), then down. */
	while (at && memo[at - 1] == STACK_ROOT) {
		ALLOC_GROW(b->chain, n, b->alloc_chain);
		b->chain[n++] = at - 1;
		at = nodes[at - 1].parent;
	}
	s = at ? memo[at - 1] : STACK_ROOT;
	while (n--) {
		s = profile_set_stack(b->ps, s, nodes[b->chain[n]].frame);
		memo[b->chain[n]] = s;
	}
	return s;
}
