#include "config.h"

#include "tflame/functions.h"

#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/hash.h"
#include "tflame/xalloc.h"

/* ft's lookup made again with nslots slots (a power of two) for its functions. */
static void
slots_rehash(struct func_table *ft, uint32_t nslots)
{
	free(ft->slots);
	ft->slots = xzalloc_table(nslots, sizeof(*ft->slots));
	ft->mask = nslots - 1;
	for (func_id fn = 0; fn < ft->nr_funcs; fn++) {
		uint32_t pos = (uint32_t)hash_pair(ft->funcs[fn].name, ft->funcs[fn].module) &
			       ft->mask;

		while (ft->slots[pos])
			pos = (pos + 1) & ft->mask;
		ft->slots[pos] = fn + 1;
	}
}

/* The fewest slots (64 or more) that keep nr functions at most half full. */
static uint32_t
slots_for(uint32_t nr)
{
	uint32_t nslots = 64;

	while ((uint64_t)nslots < (uint64_t)nr * 2 + 2)
		nslots *= 2;
	return nslots;
}

/* Frames [ft->nr_frames, ps->nr_frames) into functions: found, or added last. */
static void
add_frames(struct func_table *ft, const struct profile_set *ps)
{
	/* Each new frame may be a new function. */
	uint32_t room = slots_for(ft->nr_funcs + (ps->nr_frames - ft->nr_frames));

	if (!ft->slots || room > ft->mask + 1)
		slots_rehash(ft, room);
	ft->frame_func = xreallocarray(ft->frame_func, (size_t)ps->nr_frames + 1,
				       sizeof(*ft->frame_func));
	for (uint32_t i = ft->nr_frames; i < ps->nr_frames; i++) {
		const struct frame *f = &ps->frames[i];
		bool process = f->flags & FRAME_PROCESS;
		uint32_t pos = (uint32_t)hash_pair(f->name, f->module) & ft->mask;

		for (; ft->slots[pos]; pos = (pos + 1) & ft->mask) {
			func_id fn = ft->slots[pos] - 1;

			if (ft->funcs[fn].name == f->name && ft->funcs[fn].module == f->module &&
			    ft->process[fn] == process)
				break;
		}
		if (!ft->slots[pos]) {
			if (ft->nr_funcs >= ft->alloc_funcs) {
				ft->alloc_funcs = ft->alloc_funcs ? 2 * ft->alloc_funcs : 64;
				ft->funcs = xreallocarray(ft->funcs, ft->alloc_funcs, sizeof(*ft->funcs));
				ft->process = xreallocarray(ft->process, ft->alloc_funcs, sizeof(bool));
			}
			ft->funcs[ft->nr_funcs].name = f->name;
			ft->funcs[ft->nr_funcs].module = f->module;
			ft->process[ft->nr_funcs] = process;
			ft->slots[pos] = ++ft->nr_funcs;
		}
		ft->frame_func[i] = ft->slots[pos] - 1;
	}
	ft->nr_frames = ps->nr_frames;
	/*
	 * Kept for the frames to come, but sized for the functions: a set
	 * with lines or addresses has many more frames than functions.
	 */
	if (slots_for(ft->nr_funcs) * 4 <= ft->mask + 1)
		slots_rehash(ft, slots_for(ft->nr_funcs));
}

void
func_table_init(struct func_table *ft, const struct profile_set *ps)
{
	memset(ft, 0, sizeof(*ft));
	add_frames(ft, ps);
}

void
func_table_release(struct func_table *ft)
{
	free(ft->frame_func);
	free(ft->funcs);
	free(ft->process);
	free(ft->outermost);
	free(ft->name_rank);
	free(ft->slots);
	memset(ft, 0, sizeof(*ft));
}

/* Two strings of ps in byte order, a prefix first. */
static int
cmp_str_bytes(const struct profile_set *ps, str_id a, str_id b)
{
	uint32_t la, lb;
	int c;

	if (a == b)
		return 0;
	la = intern_len(&ps->strings, a);
	lb = intern_len(&ps->strings, b);
	c = memcmp(ps_get(ps, a), ps_get(ps, b), la < lb ? la : lb);
	if (c)
		return c;
	return la < lb ? -1 : la > lb;
}

int
func_cmp_names(const struct func_table *ft, const struct profile_set *ps, func_id a, func_id b)
{
	int c = cmp_str_bytes(ps, ft->funcs[a].name, ft->funcs[b].name);

	if (!c)
		c = cmp_str_bytes(ps, ft->funcs[a].module, ft->funcs[b].module);
	return c ? c : (a > b) - (a < b);
}

void
func_ids_sort(func_id *a, uint32_t n, int (*cmp)(const void *ctx, func_id a, func_id b),
	      const void *ctx)
{
	func_id *tmp = xmalloc(sizeof(*tmp) * ((size_t)n + 1));
	func_id *src = a, *dst = tmp, *t;

	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				dst[k++] = cmp(ctx, src[j], src[i]) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, sizeof(*a) * n);
	free(tmp);
}

struct names_ctx {
	const struct func_table *ft;
	const struct profile_set *ps;
};

static int
cmp_names_ctx(const void *ctx, func_id a, func_id b)
{
	const struct names_ctx *c = ctx;

	return func_cmp_names(c->ft, c->ps, a, b);
}

void
func_table_rank_names(struct func_table *ft, const struct profile_set *ps)
{
	struct names_ctx ctx = { ft, ps };
	uint32_t n = ft->nr_funcs;
	func_id *a;

	if (ft->name_rank)
		return;
	a = xmalloc(sizeof(*a) * ((size_t)n + 1));
	for (func_id f = 0; f < n; f++)
		a[f] = f;
	func_ids_sort(a, n, cmp_names_ctx, &ctx);
	ft->name_rank = xmalloc(sizeof(*ft->name_rank) * ((size_t)n + 1));
	for (uint32_t i = 0; i < n; i++)
		ft->name_rank[a[i]] = i;
	free(a);
}

/*
 * The ranks of functions [old, ft->nr_funcs), new, and of the old ones
 * moved up past them: each new one's place among the old by a binary
 * search, then one pass that counts, in rank order, the new ones before.
 */
static void
rank_new_names(struct func_table *ft, const struct profile_set *ps, uint32_t old)
{
	struct names_ctx ctx = { ft, ps };
	uint32_t n = ft->nr_funcs, k = n - old;
	func_id *order = xmalloc(sizeof(*order) * ((size_t)old + 1));
	func_id *fresh = xmalloc(sizeof(*fresh) * ((size_t)k + 1));
	uint32_t *at = xmalloc(sizeof(*at) * ((size_t)k + 1));

	for (func_id f = 0; f < old; f++)
		order[ft->name_rank[f]] = f;
	for (uint32_t j = 0; j < k; j++)
		fresh[j] = old + j;
	func_ids_sort(fresh, k, cmp_names_ctx, &ctx);
	/* at[j]: the old functions before fresh[j], not fewer than fresh[j - 1]'s. */
	for (uint32_t j = 0, lo = 0; j < k; j++) {
		uint32_t hi = old;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (func_cmp_names(ft, ps, order[mid], fresh[j]) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		at[j] = lo;
	}
	ft->name_rank = xreallocarray(ft->name_rank, (size_t)n + 1, sizeof(*ft->name_rank));
	for (uint32_t r = 0, j = 0; r < old; r++) {
		while (j < k && at[j] <= r)
			j++;
		ft->name_rank[order[r]] = r + j;
	}
	for (uint32_t j = 0; j < k; j++)
		ft->name_rank[fresh[j]] = at[j] + j;
	free(at);
	free(fresh);
	free(order);
}

void
func_table_extend(struct func_table *ft, const struct profile_set *ps)
{
	uint32_t old = ft->nr_funcs;

	if (ps->nr_frames == ft->nr_frames)
		return;
	add_frames(ft, ps);
	free(ft->outermost);
	ft->outermost = NULL;
	ft->nr_marked = 0;
	if (ft->name_rank && ft->nr_funcs > old)
		rank_new_names(ft, ps, old);
}

struct func_key {
	str_id name, module;
	bool process;
};

/* Order functions on their identity: name, module, then kind. */
static int
cmp_func_key(const void *a, const void *b)
{
	const struct func_key *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return (int)x->process - (int)y->process;
}

int
func_table_check(const struct func_table *ft, const struct profile_set *ps,
		 struct tf_error *err)
{
	struct func_key *keys;
	bool dup = false;

	if (ft->nr_frames != ps->nr_frames)
		return tf_error_set(err, "functions of %u frames, the set has %u", ft->nr_frames,
				    ps->nr_frames);
	for (uint32_t i = 0; i < ps->nr_frames; i++) {
		func_id fn = ft->frame_func[i];

		if (fn >= ft->nr_funcs)
			return tf_error_set(err, "frame %u maps to function %u of %u", i, fn,
					    ft->nr_funcs);
		if (ft->funcs[fn].name != ps->frames[i].name ||
		    ft->funcs[fn].module != ps->frames[i].module)
			return tf_error_set(err, "frame %u maps to a function of another name", i);
		if (ft->process[fn] != !!(ps->frames[i].flags & FRAME_PROCESS))
			return tf_error_set(err, "frame %u maps to a function of another kind", i);
	}
	keys = xmalloc(sizeof(*keys) * ((size_t)ft->nr_funcs + 1));
	for (uint32_t i = 0; i < ft->nr_funcs; i++)
		keys[i] = (struct func_key){ ft->funcs[i].name, ft->funcs[i].module,
					     ft->process[i] };
	qsort(keys, ft->nr_funcs, sizeof(*keys), cmp_func_key);
	for (uint32_t i = 1; i < ft->nr_funcs; i++)
		if (!cmp_func_key(&keys[i], &keys[i - 1]))
			dup = true;
	free(keys);
	if (dup)
		return tf_error_set(err, "two functions share a name, module and kind");
	if (ft->name_rank) {
		func_id *by_rank = xmalloc(sizeof(*by_rank) * ((size_t)ft->nr_funcs + 1));
		int ret = 0;

		for (func_id f = 0; f < ft->nr_funcs; f++)
			by_rank[f] = UINT32_MAX;
		for (func_id f = 0; f < ft->nr_funcs && !ret; f++) {
			if (ft->name_rank[f] >= ft->nr_funcs || by_rank[ft->name_rank[f]] != UINT32_MAX)
				ret = tf_error_set(err, "function %u: rank %u taken or out of range", f,
						   ft->name_rank[f]);
			else
				by_rank[ft->name_rank[f]] = f;
		}
		for (uint32_t r = 1; r < ft->nr_funcs && !ret; r++)
			if (func_cmp_names(ft, ps, by_rank[r - 1], by_rank[r]) >= 0)
				ret = tf_error_set(err, "functions ranked %u and %u out of order", r - 1,
						   r);
		free(by_rank);
		if (ret)
			return ret;
	}
	if (!ft->outermost)
		return 0;
	if (ft->nr_marked > ps->nr_stacks)
		return tf_error_set(err, "outermost marks for %u of %u stacks", ft->nr_marked,
				    ps->nr_stacks);
	/* A sample of the marks: roots' children, and direct recursion. */
	for (stack_id s = 1; s < ft->nr_marked; s++) {
		const struct stack_node *n = &ps->stacks[s];
		bool outer = func_table_outermost(ft, s);

		if (n->depth == 1 && !outer)
			return tf_error_set(err, "stack %u: a root's child not marked outermost", s);
		if (n->depth > 1 && outer &&
		    ft->frame_func[n->frame] == ft->frame_func[ps->stacks[n->parent].frame])
			return tf_error_set(err, "stack %u: marked outermost under itself", s);
	}
	return 0;
}

uint64_t
stack_weights(const struct profile_set *ps, const struct profile *p,
	      const struct sample_filter *filter, uint64_t *out)
{
	uint64_t sum = 0;
	const bool *keep = filter ? filter->threads : NULL;

	memset(out, 0, sizeof(*out) * ps->nr_stacks);
	if (filter && filter->timed) {
		/* A time range: the rare, slower loop. */
		for (size_t i = 0; i < p->nr_samples; i++) {
			if ((keep && !keep[p->thread[i]]) || p->time[i] < filter->t0 ||
			    p->time[i] >= filter->t1)
				continue;
			out[p->stack[i]] += p->weight[i];
			sum += p->weight[i];
		}
	} else if (keep) {
		for (size_t i = 0; i < p->nr_samples; i++) {
			if (!keep[p->thread[i]])
				continue;
			out[p->stack[i]] += p->weight[i];
			sum += p->weight[i];
		}
	} else {
		for (size_t i = 0; i < p->nr_samples; i++)
			out[p->stack[i]] += p->weight[i];
		sum = p->total_weight;
	}
	return sum;
}

/*
 * Counting recursion once: the total of a function is the weight below its
 * *outermost* occurrences on each path. Which occurrences are outermost
 * depends on the stacks alone, so it is worked out once: a depth-first walk
 * keeps, per function, how many times it is on the current path, and a
 * node whose function is not on it yet is outermost. Then, for any
 * weights, a function's total is the sum of the subtree weights of its
 * outermost nodes, and subtree weights come from one backward pass, since
 * parents precede children.
 */
/*
 * The children of a set's stacks, for a walk: the set's own links, or,
 * where they are deferred (profile_set_defer_links()), lists made here
 * from the parents, 8 bytes a stack for the walk's time.
 */
struct kids_walk {
	const struct profile_set *ps;
	stack_id *first, *next; /* NULL: the set's links */
};

static void
kids_walk_init(struct kids_walk *kw, const struct profile_set *ps)
{
	kw->ps = ps;
	kw->first = kw->next = NULL;
	if (!ps->unlinked_from)
		return;
	kw->first = xmalloc(sizeof(*kw->first) * ((size_t)ps->nr_stacks + 1));
	kw->next = xmalloc(sizeof(*kw->next) * ((size_t)ps->nr_stacks + 1));
	for (stack_id s = 0; s < ps->nr_stacks; s++)
		kw->first[s] = STACK_ROOT;
	for (stack_id s = ps->nr_stacks; s-- > 1;) {
		stack_id p = ps->stacks[s].parent;

		kw->next[s] = kw->first[p];
		kw->first[p] = s;
	}
}

static inline stack_id
kids_first(const struct kids_walk *kw, stack_id s)
{
	return kw->first ? kw->first[s] : ps_first_child(kw->ps, s);
}

static inline stack_id
kids_next(const struct kids_walk *kw, stack_id s)
{
	return kw->next ? kw->next[s] : ps_next_sibling(kw->ps, s);
}

void
func_table_mark_outermost(struct func_table *ft, const struct profile_set *ps)
{
	size_t n = ps->nr_stacks;
	uint32_t *on_path = xcalloc(ft->nr_funcs + 1, sizeof(*on_path));
	struct kids_walk kw;
	stack_id s;

	free(ft->outermost);
	ft->outermost = xcalloc(n / 64 + 1, sizeof(*ft->outermost));
	ft->nr_marked = (uint32_t)n;
	kids_walk_init(&kw, ps);
	s = kids_first(&kw, STACK_ROOT);
	while (s != STACK_ROOT) {
		func_id fn = ft->frame_func[ps->stacks[s].frame];

		if (!on_path[fn])
			ft->outermost[s >> 6] |= (uint64_t)1 << (s & 63);
		on_path[fn]++;
		if (kids_first(&kw, s) != STACK_ROOT) {
			s = kids_first(&kw, s);
			continue;
		}
		/* Leave s, and every ancestor whose children are all done. */
		while (s != STACK_ROOT) {
			on_path[ft->frame_func[ps->stacks[s].frame]]--;
			if (kids_next(&kw, s) != STACK_ROOT) {
				s = kids_next(&kw, s);
				break;
			}
			s = ps->stacks[s].parent;
		}
	}
	free(kw.first);
	free(kw.next);
	free(on_path);
}

/* The linear pass, given the outermost marks of every stack of ps. */
static void
stats_from_marks(const struct func_table *ft, const uint64_t *outermost,
		 const struct profile_set *ps, const uint64_t *w, const uint64_t *sub,
		 struct func_stats *out)
{
	memset(out, 0, sizeof(*out) * ft->nr_funcs);
	for (size_t i = 1; i < ps->nr_stacks; i++) {
		func_id fn;

		if (!sub[i])
			continue;
		fn = ft->frame_func[ps->stacks[i].frame];
		out[fn].self += w[i];
		if (outermost[i >> 6] >> (i & 63) & 1)
			out[fn].total += sub[i];
	}
}

void
func_stats_compute_sums(const struct func_table *ft, const struct profile_set *ps,
			const uint64_t *w, const uint64_t *sub, struct func_stats *out)
{
	struct func_table marked;

	if (ft->outermost && ft->nr_marked == ps->nr_stacks) {
		stats_from_marks(ft, ft->outermost, ps, w, sub, out);
		return;
	}
	/* A shallow copy that owns only the marks made for this call. */
	marked = *ft;
	marked.outermost = NULL;
	func_table_mark_outermost(&marked, ps);
	stats_from_marks(ft, marked.outermost, ps, w, sub, out);
	free(marked.outermost);
}

void
func_stats_compute(const struct func_table *ft, const struct profile_set *ps,
		   const uint64_t *w, struct func_stats *out)
{
	size_t n = ps->nr_stacks;
	uint64_t *sub = xmalloc(sizeof(*sub) * n);

	memcpy(sub, w, sizeof(*sub) * n);
	for (size_t i = n; i-- > 1;)
		sub[ps->stacks[i].parent] += sub[i];
	func_stats_compute_sums(ft, ps, w, sub, out);
	free(sub);
}

bool
func_stats_figures(const struct func_table *ft, const struct profile *p,
		   struct func_stats *out)
{
	if (!p->figures)
		return false;
	memset(out, 0, sizeof(*out) * ft->nr_funcs);
	for (uint32_t i = 0; i < p->nr_figures; i++) {
		const struct func_figure *f = &p->figures[i];
		struct func_stats *st = &out[ft->frame_func[f->frame]];

		st->self += f->self;
		st->total += f->total;
	}
	return true;
}
