#include "config.h"

#include "tflame/profile.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tflame/error.h"
#include "tflame/hash.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * The frame, stack and thread tables share one scheme: an open-addressing
 * array of (hash32 << 32) | (id + 1), 0 for an empty slot, kept under half
 * full. Growing it needs no rehashing of keys: the hash is in the slot.
 */

static uint64_t *
slots_new(uint32_t n)
{
	return xzalloc_table(n, sizeof(uint64_t));
}

/* Move the table into n slots (a power of two, more than it holds). */
static void
slots_resize(uint64_t **slots, uint32_t *mask, uint32_t n)
{
	uint32_t m = n - 1;
	uint64_t *s = slots_new(n);

	for (uint32_t i = 0; i <= *mask; i++) {
		uint64_t e = (*slots)[i];
		uint32_t pos;

		if (!e)
			continue;
		for (pos = (uint32_t)(e >> 32) & m; s[pos]; pos = (pos + 1) & m)
			;
		s[pos] = e;
	}
	free(*slots);
	*slots = s;
	*mask = m;
}

static void
slots_grow(uint64_t **slots, uint32_t *mask)
{
	slots_resize(slots, mask, (*mask + 1) * 2);
}

static void
slots_put(uint64_t **slots, uint32_t *mask, uint32_t pos, uint32_t h32, uint32_t id,
	  uint32_t count)
{
	(*slots)[pos] = ((uint64_t)h32 << 32) | ((uint64_t)id + 1);
	if ((uint64_t)count * 2 > (uint64_t)*mask + 1)
		slots_grow(slots, mask);
}

const char *
weight_unit_name(enum weight_unit unit)
{
	switch (unit) {
	case UNIT_NONE:
		return "";
	case UNIT_SAMPLES:
		return "samples";
	case UNIT_EVENTS:
		return "events";
	case UNIT_NANOSECONDS:
		return "ns";
	case UNIT_BYTES:
		return "bytes";
	case UNIT_OBJECTS:
		return "objects";
	}
	return "";
}

static void
src_table_init(struct profile_set *ps)
{
	struct src_node root = { SRC_ROOT, STACK_ROOT, STR_EMPTY, 0 };

	ps->src_slots = slots_new(64);
	ps->src_mask = 63;
	ps->nr_srcs = 0;
	ALLOC_GROW(ps->srcs, ps->nr_srcs, ps->alloc_srcs);
	ps->srcs[ps->nr_srcs++] = root;
}

/* Room for n stacks in the stacks and the links that run beside them. */
static void
stacks_resize(struct profile_set *ps, uint32_t n)
{
	ps->stacks = xreallocarray(ps->stacks, n, sizeof(*ps->stacks));
	ps->kids.link = xreallocarray(ps->kids.link, n, sizeof(*ps->kids.link));
	ps->alloc_stacks = n;
	/* Reallocated: a view's table grows to its size at once (reserved). */
	xalloc_huge(ps->stacks, sizeof(*ps->stacks) * n);
	xalloc_huge(ps->kids.link, sizeof(*ps->kids.link) * n);
}

/* The stack table of a new set or view: the root stack alone. */
static void
stacks_init(struct profile_set *ps)
{
	stacks_resize(ps, 1024);
	ps->stacks[0] = (struct stack_node){ STACK_ROOT, FRAME_NONE, 0 };
	ps->kids.link[0] = (struct stack_link){ STACK_ROOT, STACK_ROOT, FRAME_NONE };
	ps->kids.hub_slots = slots_new(1024);
	ps->kids.hub_mask = 1023;
	ps->kids.nr_hub = 0;
	ps->nr_stacks = 1;
}

static void
stacks_release(struct profile_set *ps)
{
	free(ps->stacks);
	free(ps->kids.link);
	free(ps->kids.hub_slots);
}

struct profile_set *
profile_set_new(void)
{
	struct profile_set *ps = xcalloc(1, sizeof(*ps));

	intern_init(&ps->strings);
	ps->frame_slots = slots_new(1024);
	ps->frame_mask = 1023;
	ps->thread_slots = slots_new(64);
	ps->thread_mask = 63;
	stacks_init(ps);
	src_table_init(ps);
	return ps;
}

static void
profile_free(struct profile *p)
{
	free(p->src);
	free(p->stack);
	free(p->weight);
	free(p->time);
	free(p->thread);
	free(p->figures);
	free(p);
}

void
profile_set_free(struct profile_set *ps)
{
	if (!ps)
		return;
	intern_release(&ps->strings);
	free(ps->frames);
	free(ps->frame_slots);
	stacks_release(ps);
	free(ps->loose);
	free(ps->srcs);
	free(ps->src_slots);
	free(ps->threads);
	free(ps->thread_slots);
	for (size_t i = 0; i < ps->nr_profiles; i++)
		profile_free(ps->profiles[i]);
	free(ps->profiles);
	for (size_t i = 0; i < ps->nr_diags; i++)
		free(ps->diags[i].msg);
	free(ps->diags);
	free(ps);
}

void
profile_set_view_sync(struct profile_set *view, const struct profile_set *base)
{
	view->strings = base->strings;
	view->frames = base->frames;
	view->nr_frames = base->nr_frames;
	view->alloc_frames = base->alloc_frames;
	view->frame_slots = base->frame_slots;
	view->frame_mask = base->frame_mask;
}

void
profile_set_view_init(struct profile_set *view, const struct profile_set *base)
{
	memset(view, 0, sizeof(*view));
	/* Shallow copies: the view reads these tables and never grows them. */
	profile_set_view_sync(view, base);
	view->threads = base->threads;
	view->nr_threads = base->nr_threads;
	view->alloc_threads = base->alloc_threads;
	view->thread_slots = base->thread_slots;
	view->thread_mask = base->thread_mask;
	view->format = base->format;
	view->perf_script = base->perf_script;

	stacks_init(view);
	src_table_init(view);
}

void
profile_set_view_release(struct profile_set *view)
{
	stacks_release(view);
	free(view->srcs);
	free(view->src_slots);
	memset(view, 0, sizeof(*view));
}

void
profile_set_reserve_stacks(struct profile_set *ps, uint32_t n)
{
	uint64_t want = (uint64_t)ps->nr_stacks + n;

	if (want >= STACK_BUSY - 1)
		die("too many distinct stacks");
	if (want > ps->alloc_stacks)
		stacks_resize(ps, (uint32_t)want);
}

static uint64_t
frame_hash(const struct frame *f)
{
	uint64_t h = hash_pair(f->name, f->module);

	h = hash_pair(h, ((uint64_t)f->file << 32) | f->line);
	return hash_pair(h, f->addr ^ ((uint64_t)f->flags << 56));
}

static int
frame_eq(const struct frame *a, const struct frame *b)
{
	return a->name == b->name && a->module == b->module && a->file == b->file &&
	       a->line == b->line && a->flags == b->flags && a->addr == b->addr;
}

/*
 * Find f: its id, or UINT32_MAX with *pos set to the empty slot where it
 * belongs.
 */
static uint32_t
frame_find(const struct profile_set *ps, const struct frame *f, uint32_t h32, uint32_t *pos)
{
	uint32_t i = h32 & ps->frame_mask;

	for (;; i = (i + 1) & ps->frame_mask) {
		uint64_t e = ps->frame_slots[i];

		if (!e)
			break;
		if ((uint32_t)(e >> 32) == h32 && frame_eq(&ps->frames[(uint32_t)e - 1], f))
			return (uint32_t)e - 1;
	}
	*pos = i;
	return UINT32_MAX;
}

/* The part of function name s that profile_same_function() compares. */
static void
function_core(const char *s, size_t len, const char **core, size_t *core_len)
{
	const char *at = memchr(s, '@', len), *clone;
	size_t start = 0;

	if (at && at > s)
		len = (size_t)(at - s);
	clone = len > 8 ? memmem(s, len, " [clone .", 9) : NULL;
	if (clone && clone > s)
		len = (size_t)(clone - s);
	for (size_t i = 1; i + 1 < len; i++) {
		unsigned char c = (unsigned char)s[i + 1];

		/* "f.part.0", "f.cold": a dot then a letter, in a name with no '(' before. */
		if (s[i] == '(')
			break;
		if (s[i] == '.' && ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')) {
			len = i;
			break;
		}
	}
	if (len > 5 && !memcmp(s, "__GI_", 5))
		start = 5;
	else if (len > 7 && !memcmp(s, "__libc_", 7))
		start = 7;
	while (start < len && s[start] == '_')
		start++;
	*core = s + start;
	*core_len = len - start;
}

uint64_t
profile_function_key(const char *name, size_t len)
{
	const char *core;
	size_t n;
	uint64_t h;

	function_core(name, len, &core, &n);
	/* A name that is all affixes is only itself: keyed apart from cores. */
	h = n ? hash_bytes(core, n, 0) : hash_bytes(name, len, 1);
	return h ? h : 1;
}

bool
profile_same_function(const char *a, size_t alen, const char *b, size_t blen)
{
	const char *ca, *cb;
	size_t na, nb;

	if (alen == blen && !memcmp(a, b, alen))
		return true;
	function_core(a, alen, &ca, &na);
	function_core(b, blen, &cb, &nb);
	return na && na == nb && !memcmp(ca, cb, na);
}

frame_id
profile_set_frame(struct profile_set *ps, const struct frame *f)
{
	uint32_t h32 = (uint32_t)frame_hash(f);
	uint32_t pos, id = frame_find(ps, f, h32, &pos);

	if (id != UINT32_MAX)
		return id;
	if (ps->nr_frames >= UINT32_MAX - 2)
		die("too many distinct frames");
	ALLOC_GROW(ps->frames, ps->nr_frames, ps->alloc_frames);
	id = ps->nr_frames++;
	ps->frames[id] = *f;
	slots_put(&ps->frame_slots, &ps->frame_mask, pos, h32, id, ps->nr_frames);
	return id;
}

static uint32_t
stack_hash(stack_id parent, frame_id frame)
{
	return (uint32_t)hash_pair(parent, frame);
}

/*
 * Find stack (parent, frame) in the hash table of the children of busy
 * stacks: its id, or UINT32_MAX. *pos is its slot, or the empty slot
 * where it belongs.
 */
static uint32_t
stack_hub_find(const struct profile_set *ps, stack_id parent, frame_id frame, uint32_t h32,
	       uint32_t *pos)
{
	const struct stack_children *k = &ps->kids;
	uint32_t i = h32 & k->hub_mask;

	for (;; i = (i + 1) & k->hub_mask) {
		uint64_t e = k->hub_slots[i];

		if (!e)
			break;
		if ((uint32_t)(e >> 32) == h32) {
			const struct stack_node *n = &ps->stacks[(uint32_t)e - 1];

			if (n->parent == parent && n->frame == frame)
				break;
		}
	}
	*pos = i;
	return k->hub_slots[i] ? (uint32_t)k->hub_slots[i] - 1 : UINT32_MAX;
}

static void
stack_hub_put(struct profile_set *ps, stack_id s)
{
	struct stack_children *k = &ps->kids;
	uint32_t h32 = stack_hash(ps->stacks[s].parent, ps->stacks[s].frame), pos;

	if (stack_hub_find(ps, ps->stacks[s].parent, ps->stacks[s].frame, h32, &pos) !=
	    UINT32_MAX)
		BUG("stack %u is in the table twice", s);
	slots_put(&k->hub_slots, &k->hub_mask, pos, h32, s, ++k->nr_hub);
}

/*
 * The stack (parent, frame), or UINT32_MAX if there is none; *walked is
 * how many children the walk passed (all of them when there is none).
 */
static uint32_t
stack_lookup(const struct profile_set *ps, stack_id parent, frame_id frame, uint32_t *walked)
{
	const struct stack_link *link = ps->kids.link;
	stack_id s = link[parent].first;
	uint32_t n = 0, pos;

	if (s & STACK_BUSY) {
		*walked = STACK_WALK + 1;
		return stack_hub_find(ps, parent, frame, stack_hash(parent, frame), &pos);
	}
	for (; s != STACK_ROOT; s = link[s].next, n++)
		if (link[s].frame == frame)
			break;
	*walked = n;
	return s != STACK_ROOT ? s : UINT32_MAX;
}

stack_id
profile_set_find_stack(const struct profile_set *ps, stack_id parent, frame_id frame)
{
	uint32_t n;

	if (ps->nr_loose)
		BUG("looking a stack up in a set with loose stacks");
	if (ps->unlinked_from)
		BUG("looking a stack up in a set whose links are deferred");
	return stack_lookup(ps, parent, frame, &n);
}

/*
 * Link the new stack id, (parent, frame), first among parent's children;
 * kids is how many parent has now, id counted, read while it is not busy.
 */
static inline __attribute__((always_inline)) void
stack_link(struct profile_set *ps, stack_id id, stack_id parent, frame_id frame, uint32_t kids)
{
	struct stack_link *link = ps->kids.link;
	stack_id busy = link[parent].first & STACK_BUSY;

	link[id] = (struct stack_link){ STACK_ROOT, link[parent].first & ~STACK_BUSY, frame };
	link[parent].first = id | busy;
	if (busy) {
		stack_hub_put(ps, id);
	} else if (kids > STACK_WALK) {
		/* Busy now: from here on its children are looked up, not walked. */
		link[parent].first |= STACK_BUSY;
		for (stack_id c = id; c != STACK_ROOT; c = link[c].next)
			stack_hub_put(ps, c);
	}
}

/* A new stack (parent, frame), linked as parent's kids-th child. */
static inline __attribute__((always_inline)) stack_id
stack_add(struct profile_set *ps, stack_id parent, frame_id frame, uint32_t kids)
{
	stack_id id;

	if (ps->nr_stacks >= STACK_BUSY - 2)
		die("too many distinct stacks");
	if (ps->nr_stacks == ps->alloc_stacks) {
		uint64_t m = (uint64_t)ps->alloc_stacks / 2 * 3;

		stacks_resize(ps, m < 1024 ? 1024 : m > STACK_BUSY - 1 ? STACK_BUSY - 1 : (uint32_t)m);
	}
	id = ps->nr_stacks++;
	ps->stacks[id].parent = parent;
	ps->stacks[id].frame = frame;
	ps->stacks[id].depth = ps->stacks[parent].depth + 1;
	stack_link(ps, id, parent, frame, kids);
	return id;
}

/* profile_set_stack(), inlined into the loops that make most stacks. */
static inline __attribute__((always_inline)) stack_id
stack_get(struct profile_set *ps, stack_id parent, frame_id frame)
{
	uint32_t n, id = stack_lookup(ps, parent, frame, &n);

	if (id != UINT32_MAX)
		return id;
	return stack_add(ps, parent, frame, n + 1);
}

stack_id
profile_set_new_stack(struct profile_set *ps, stack_id parent, frame_id frame, uint32_t kids)
{
	if (ps->nr_loose)
		BUG("adding a stack to a set with loose stacks");
	if (ps->unlinked_from)
		profile_set_link_stacks(ps, ps->unlinked_from);
	return stack_add(ps, parent, frame, kids);
}

stack_id
profile_set_add_stacks(struct profile_set *ps, uint32_t n)
{
	stack_id first = ps->nr_stacks;

	profile_set_reserve_stacks(ps, n);
	ps->nr_stacks += n;
	return first;
}

/* How many children s has, up to STACK_WALK + 1 (busy), by a walk. */
static uint8_t
count_kids(const struct profile_set *ps, stack_id s)
{
	const struct stack_link *link = ps->kids.link;
	uint8_t n = 0;

	if (link[s].first & STACK_BUSY)
		return STACK_WALK + 1;
	for (stack_id c = link[s].first; c != STACK_ROOT && n <= STACK_WALK; c = link[c].next)
		n++;
	return n;
}

/* The depths of the stacks from first on, each made after its parent. */
static void
set_depths(struct profile_set *ps, stack_id first)
{
	for (stack_id s = first; s < ps->nr_stacks; s++) {
		stack_id parent = ps->stacks[s].parent;

		if (parent >= s)
			BUG("stack %u under stack %u, made after it", s, parent);
		ps->stacks[s].depth = ps->stacks[parent].depth + 1;
	}
}

void
profile_set_link_stacks(struct profile_set *ps, stack_id first)
{
	/* Per stack, its children so far (up to busy); UINT8_MAX: not counted yet. */
	uint8_t *nr_kids;

	set_depths(ps, first);
	if (ps->unlinked_from) {
		/* Deferred ones first (their depths set then), with these. */
		if (ps->unlinked_from > first)
			BUG("linking stacks from %u, deferred from %u", first, ps->unlinked_from);
		first = ps->unlinked_from;
		ps->unlinked_from = 0;
	}
	nr_kids = xmalloc((size_t)ps->nr_stacks + 1);

	memset(nr_kids, UINT8_MAX, first);
	memset(nr_kids + first, 0, ps->nr_stacks - first);
	for (stack_id s = first; s < ps->nr_stacks; s++) {
		stack_id parent = ps->stacks[s].parent;

		if (nr_kids[parent] == UINT8_MAX)
			nr_kids[parent] = count_kids(ps, parent);
		/* Once busy, its count stays where it turned (the link no longer reads it). */
		if (nr_kids[parent] <= STACK_WALK)
			nr_kids[parent]++;
		stack_link(ps, s, parent, ps->stacks[s].frame, nr_kids[parent]);
	}
	free(nr_kids);
}

void
profile_set_defer_links(struct profile_set *ps, stack_id first)
{
	if (!first)
		BUG("deferring the root's links");
	set_depths(ps, first);
	if (!ps->unlinked_from && first < ps->nr_stacks)
		ps->unlinked_from = first;
}

stack_id
profile_set_stack(struct profile_set *ps, stack_id parent, frame_id frame)
{
	if (ps->nr_loose)
		BUG("adding a stack to a set with loose stacks");
	if (ps->unlinked_from)
		profile_set_link_stacks(ps, ps->unlinked_from);
	return stack_get(ps, parent, frame);
}

void
profile_set_clear_stacks(struct profile_set *ps)
{
	if (ps->nr_srcs > 1 || ps->nr_loose)
		BUG("clearing the stacks of a set with source positions or loose stacks");
	ps->nr_stacks = 1;
	ps->unlinked_from = 0;
	ps->kids.link[STACK_ROOT].first = STACK_ROOT;
	memset(ps->kids.hub_slots, 0, sizeof(*ps->kids.hub_slots) * ((size_t)ps->kids.hub_mask + 1));
	ps->kids.nr_hub = 0;
}

void
profile_set_swap_stacks(struct profile_set *ps, struct profile_set *view)
{
	struct stack_node *stacks = ps->stacks;
	uint32_t nr = ps->nr_stacks, alloc = ps->alloc_stacks;
	struct stack_children kids = ps->kids;
	stack_id unlinked = ps->unlinked_from;

	if (view->frames != ps->frames)
		BUG("swapping the stacks of a set and a view of another");
	if (ps->nr_loose)
		BUG("swapping the stacks of a set with loose stacks");
	ps->stacks = view->stacks;
	ps->nr_stacks = view->nr_stacks;
	ps->alloc_stacks = view->alloc_stacks;
	ps->kids = view->kids;
	ps->unlinked_from = view->unlinked_from;
	view->stacks = stacks;
	view->nr_stacks = nr;
	view->alloc_stacks = alloc;
	view->kids = kids;
	view->unlinked_from = unlinked;
	/* Positions name stacks: they meant the old ones. */
	for (size_t i = 0; i < ps->nr_profiles; i++) {
		free(ps->profiles[i]->src);
		ps->profiles[i]->src = NULL;
	}
	free(ps->src_slots);
	ps->nr_srcs = 0;
	src_table_init(ps);
}

static uint64_t
src_hash(src_id parent, stack_id stack, str_id file, uint32_t line)
{
	return hash_pair(hash_pair(parent, stack), ((uint64_t)file << 32) | line);
}

static uint32_t
src_find(const struct profile_set *ps, const struct src_node *n, uint32_t h32, uint32_t *pos)
{
	uint32_t i = h32 & ps->src_mask;

	for (;; i = (i + 1) & ps->src_mask) {
		uint64_t e = ps->src_slots[i];
		const struct src_node *o;

		if (!e)
			break;
		o = &ps->srcs[(uint32_t)e - 1];
		if ((uint32_t)(e >> 32) == h32 && o->parent == n->parent &&
		    o->stack == n->stack && o->file == n->file && o->line == n->line)
			return (uint32_t)e - 1;
	}
	*pos = i;
	return UINT32_MAX;
}

src_id
profile_set_src(struct profile_set *ps, src_id parent, stack_id stack, str_id file,
		uint32_t line)
{
	struct src_node n = { parent, stack, file, line };
	uint32_t h32 = (uint32_t)src_hash(parent, stack, file, line);
	uint32_t pos, id = src_find(ps, &n, h32, &pos);

	if (id != UINT32_MAX)
		return id;
	if (ps->nr_srcs >= UINT32_MAX - 2)
		die("too many distinct source positions");
	ALLOC_GROW(ps->srcs, ps->nr_srcs, ps->alloc_srcs);
	id = ps->nr_srcs++;
	ps->srcs[id] = n;
	slots_put(&ps->src_slots, &ps->src_mask, pos, h32, id, ps->nr_srcs);
	return id;
}

/*
 * A known tid hashes without its comm, so that the entries of one thread
 * share a probe sequence and a new name finds its thread there.
 */
static uint64_t
thread_hash(int64_t pid, int64_t tid, str_id comm)
{
	uint64_t h = hash_pair((uint64_t)pid, (uint64_t)tid);

	return tid >= 0 ? h : hash_pair(h, comm);
}

/*
 * The entry (pid, tid, comm), or UINT32_MAX with the free slot in *pos and
 * in *same an entry of the same pid and known tid (THREAD_NONE if none).
 */
static uint32_t
thread_find(const struct profile_set *ps, int64_t pid, int64_t tid, str_id comm,
	    uint32_t h32, uint32_t *pos, thread_id *same)
{
	uint32_t i = h32 & ps->thread_mask;

	*same = THREAD_NONE;
	for (;; i = (i + 1) & ps->thread_mask) {
		uint64_t e = ps->thread_slots[i];

		if (!e)
			break;
		if ((uint32_t)(e >> 32) == h32) {
			const struct thread *t = &ps->threads[(uint32_t)e - 1];

			if (t->pid == pid && t->tid == tid) {
				if (t->comm == comm)
					return (uint32_t)e - 1;
				if (tid >= 0)
					*same = (uint32_t)e - 1;
			}
		}
	}
	*pos = i;
	return UINT32_MAX;
}

thread_id
profile_set_thread(struct profile_set *ps, int64_t pid, int64_t tid, str_id comm)
{
	uint32_t h32 = (uint32_t)thread_hash(pid, tid, comm);
	thread_id same;
	uint32_t pos, id = thread_find(ps, pid, tid, comm, h32, &pos, &same);

	if (id != UINT32_MAX)
		return id;
	if (ps->nr_threads >= UINT32_MAX - 2)
		die("too many distinct threads");
	ALLOC_GROW(ps->threads, ps->nr_threads, ps->alloc_threads);
	id = ps->nr_threads++;
	ps->threads[id].pid = pid;
	ps->threads[id].tid = tid;
	ps->threads[id].comm = comm;
	ps->threads[id].first = id;
	ps->threads[id].next = THREAD_NONE;
	if (same != THREAD_NONE) {
		/* The latest name of the thread: at the end of its list. */
		thread_id t = ps->threads[same].first;

		ps->threads[id].first = t;
		while (ps->threads[t].next != THREAD_NONE)
			t = ps->threads[t].next;
		ps->threads[t].next = id;
	}
	slots_put(&ps->thread_slots, &ps->thread_mask, pos, h32, id, ps->nr_threads);
	return id;
}

str_id
profile_thread_comm(const struct profile_set *ps, thread_id t)
{
	str_id comm = STR_EMPTY;

	for (t = ps->threads[t].first; t != THREAD_NONE; t = ps->threads[t].next)
		if (ps->threads[t].comm != STR_EMPTY)
			comm = ps->threads[t].comm;
	return comm;
}

void
profile_thread_names(const struct profile_set *ps, thread_id t, const char *sep,
		     struct strbuf *out)
{
	bool any = false;

	/* An entry is a name: none comes twice (sh, python3, sh again is two). */
	for (t = ps->threads[t].first; t != THREAD_NONE; t = ps->threads[t].next) {
		if (ps->threads[t].comm == STR_EMPTY)
			continue;
		if (any)
			strbuf_addstr(out, sep);
		strbuf_addstr(out, ps_get(ps, ps->threads[t].comm));
		any = true;
	}
}

struct profile *
profile_set_profile(struct profile_set *ps, str_id name, enum weight_unit unit)
{
	struct profile *p;

	for (size_t i = 0; i < ps->nr_profiles; i++)
		if (ps->profiles[i]->name == name)
			return ps->profiles[i];
	p = xcalloc(1, sizeof(*p));
	p->name = name;
	p->unit = unit;
	ALLOC_GROW(ps->profiles, ps->nr_profiles, ps->alloc_profiles);
	ps->profiles[ps->nr_profiles++] = p;
	return p;
}

void
profile_set_put_first(struct profile_set *ps, struct profile *p)
{
	int i = profile_set_profile_index(ps, p);

	if (i < 0)
		BUG("profile_set_put_first() of a profile not in the set");
	memmove(ps->profiles + 1, ps->profiles, sizeof(*ps->profiles) * (size_t)i);
	ps->profiles[0] = p;
}

struct profile *
profile_set_find_profile(const struct profile_set *ps, const char *name)
{
	int64_t id = intern_find(&ps->strings, name, strlen(name));

	if (id < 0)
		return NULL;
	for (size_t i = 0; i < ps->nr_profiles; i++)
		if (ps->profiles[i]->name == (str_id)id)
			return ps->profiles[i];
	return NULL;
}

bool
profile_event_named(const struct profile_set *ps, const struct profile *p, const char *name)
{
	const char *full = ps_get(ps, p->name);
	size_t len = strlen(name), full_len = intern_len(&ps->strings, p->name);

	if (!len)
		return !full_len;
	/* Each place where a part of full starts: its start, or after a colon. */
	for (size_t at = 0; at + len <= full_len; at++) {
		if (at && full[at - 1] != ':')
			continue;
		if (!memcmp(full + at, name, len) && (at + len == full_len || full[at + len] == ':'))
			return true;
	}
	return false;
}

size_t
profile_set_find_event(const struct profile_set *ps, const char *name, struct profile **out)
{
	size_t nr = 0;

	*out = profile_set_find_profile(ps, name);
	if (*out)
		return 1;
	for (size_t i = 0; i < ps->nr_profiles; i++)
		if (profile_event_named(ps, ps->profiles[i], name))
			*out = nr++ ? NULL : ps->profiles[i];
	return nr;
}

int
profile_set_profile_index(const struct profile_set *ps, const struct profile *p)
{
	for (size_t i = 0; i < ps->nr_profiles; i++)
		if (ps->profiles[i] == p)
			return (int)i;
	return -1;
}

static void
add_diag(struct profile_set *ps, uint64_t line, char *msg)
{
	ALLOC_GROW(ps->diags, ps->nr_diags, ps->alloc_diags);
	ps->diags[ps->nr_diags].line = line;
	ps->diags[ps->nr_diags].msg = msg;
	ps->nr_diags++;
}

void
profile_set_warn(struct profile_set *ps, uint64_t line, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	add_diag(ps, line, strbuf_detach(&sb, NULL));
}

/* Room for exactly n samples in every per-sample array (n > 0). */
static void
resize_samples(struct profile *p, size_t n)
{
	p->stack = xreallocarray(p->stack, n, sizeof(*p->stack));
	p->weight = xreallocarray(p->weight, n, sizeof(*p->weight));
	p->time = xreallocarray(p->time, n, sizeof(*p->time));
	p->thread = xreallocarray(p->thread, n, sizeof(*p->thread));
	if (p->src)
		p->src = xreallocarray(p->src, n, sizeof(*p->src));
	p->alloc_samples = n;
	if (p->nr_samples > n)
		p->nr_samples = n;
}

/*
 * Room for at least want samples: exactly that many if exact, else by
 * doubling. realloc() grows a big array in place: glibc moves its own
 * mapping with mremap(), copying nothing, so the old and the new arrays
 * are never held at once. They were copied into fresh blocks in huge
 * pages, which held both at each doubling: at 1 GB of perf script (5.3 M
 * samples), report took 331 MB where 191 MB did before. Nor are they
 * advised into huge pages after the growth: mremap() of huge pages to an
 * address not 2 MiB-aligned like the old one (glibc's blocks start 16
 * bytes into a page) counts them twice in the peak the kernel reports
 * (report 177-187 MB, against 144-155 without; bench/memory.sh).
 */
static void
grow_samples_to(struct profile *p, size_t want, bool exact)
{
	size_t n;

	if (want <= p->alloc_samples)
		return;
	n = exact ? want : p->alloc_samples ? p->alloc_samples * 2 : 1024;
	if (n < want)
		n = want;
	p->stack = xreallocarray(p->stack, n, sizeof(*p->stack));
	p->weight = xreallocarray(p->weight, n, sizeof(*p->weight));
	p->time = xreallocarray(p->time, n, sizeof(*p->time));
	p->thread = xreallocarray(p->thread, n, sizeof(*p->thread));
	if (p->src)
		p->src = xreallocarray(p->src, n, sizeof(*p->src));
	p->alloc_samples = n;
}

static void
grow_samples(struct profile *p, size_t want)
{
	grow_samples_to(p, want, false);
}

void
profile_reserve_samples(struct profile *p, size_t n)
{
	grow_samples_to(p, n, true);
}

void
profile_keep_positions(struct profile *p)
{
	if (p->src)
		return;
	p->src = xcalloc(p->alloc_samples ? p->alloc_samples : 1, sizeof(*p->src));
}

/* Samples profile_set_merge() copies between two shrinks of the source. */
#define MERGE_CHUNK ((size_t)1 << 20)

static void
note_time(struct profile *p, int64_t time)
{
	if (!p->has_time) {
		p->has_time = true;
		p->time_min = p->time_max = time;
		return;
	}
	if (time < p->time_min)
		p->time_min = time;
	if (time > p->time_max)
		p->time_max = time;
}

int
profile_add_sample(struct profile *p, stack_id stack, uint64_t weight, int64_t time,
		   bool has_time, thread_id thread, struct tf_error *err)
{
	size_t i;

	(void)err;
	grow_samples(p, p->nr_samples + 1);
	i = p->nr_samples++;
	p->stack[i] = stack;
	p->weight[i] = weight;
	p->time[i] = has_time ? time : 0;
	p->thread[i] = thread;
	if (p->src)
		p->src[i] = SRC_ROOT;
	p->total_weight += weight;
	if (has_time) {
		note_time(p, time);
		if (p->spans)
			note_time(p, profile_span_end(time, weight));
	}
	return 0;
}

int
profile_set_decimals(struct profile *p, unsigned decimals, struct tf_error *err)
{
	uint64_t mul = 1;

	if (decimals <= p->weight_decimals)
		return 0;
	if (decimals > 18)
		return tf_error_set(err, "weights with more than 18 decimals are not supported");
	for (unsigned i = p->weight_decimals; i < decimals; i++)
		mul *= 10;
	for (size_t i = 0; i < p->nr_samples; i++)
		if (p->weight[i] > UINT64_MAX / mul)
			return tf_error_set(err, "a weight with %u decimals overflows 64 bits",
					    decimals);
	/* Below 2^64 samples of below 2^64 each, times below 10^19: 2^128 at most. */
	for (size_t i = 0; i < p->nr_samples; i++)
		p->weight[i] *= mul;
	p->total_weight *= mul;
	/* A figure is at most the total, whose scaling did not overflow. */
	for (uint32_t i = 0; i < p->nr_figures; i++) {
		p->figures[i].self *= mul;
		p->figures[i].total *= mul;
	}
	p->weight_decimals = decimals;
	return 0;
}

void
profile_add_figure(struct profile *p, frame_id frame, uint64_t self, uint64_t total)
{
	ALLOC_GROW(p->figures, p->nr_figures, p->alloc_figures);
	p->figures[p->nr_figures++] = (struct func_figure){ frame, self, total };
}

void
profile_drop_figures(struct profile *p)
{
	free(p->figures);
	p->figures = NULL;
	p->nr_figures = p->alloc_figures = 0;
}

/* Append src's figures to dst's, their frames mapped by fmap, scaled by mul. */
static void
append_figures(struct profile *dst, const struct profile *src, const frame_id *fmap,
	       uint64_t mul)
{
	for (uint32_t i = 0; i < src->nr_figures; i++) {
		const struct func_figure *f = &src->figures[i];

		profile_add_figure(dst, fmap ? fmap[f->frame] : f->frame, f->self * mul,
				   f->total * mul);
	}
}

void
weight_sum_format(weight_sum v, struct strbuf *out)
{
	char digits[40];
	size_t n = sizeof(digits);

	if (v <= UINT64_MAX) {
		strbuf_add_uint(out, (uint64_t)v);
		return;
	}
	do {
		digits[--n] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	strbuf_add(out, digits + n, sizeof(digits) - n);
}

unsigned
profile_wide_shift(const struct profile *p)
{
	const weight_sum limit = (weight_sum)1 << 63;
	unsigned k = 0;

	if (p->total_weight <= UINT64_MAX)
		return 0;
	/* The least k the exact sum allows; the roundings may ask one more. */
	while (p->total_weight >> k >= limit)
		k++;
	for (;; k++) {
		weight_sum sum = 0;

		for (size_t i = 0; i < p->nr_samples; i++)
			sum += profile_shift_weight(p->weight[i], k);
		/* From k = 65 on every weight is 0 or 1: this ends. */
		if (sum < limit)
			return k;
	}
}

weight_sum
profile_unscale(const struct profile *p, weight_sum w, weight_sum *unit)
{
	unsigned k = p->weight_shift;
	weight_sum err, u = 1, v, q;

	*unit = 1;
	if (!k)
		return w;
	/* A views' sum is below 2^63 and k at most 65: no overflow. */
	v = w << k;
	err = (weight_sum)p->nr_samples << k;
	while (u < 2 * err)
		u *= 10;
	q = v / u;
	if (v % u >= u - v % u)
		q++;
	*unit = u;
	return q * u;
}

void
profile_format_weight(const struct profile *p, uint64_t w, struct strbuf *out)
{
	profile_format_weight_sum(p, w, out);
}

void
profile_format_weight_sum(const struct profile *p, weight_sum w, struct strbuf *out)
{
	uint64_t div = 1, frac;
	unsigned d = p->weight_decimals;
	size_t len;

	if (p->weight_shift) {
		weight_sum unit;

		w = profile_unscale(p, w, &unit);
	}
	if (!d) {
		weight_sum_format(w, out);
		return;
	}
	for (unsigned i = 0; i < d; i++)
		div *= 10;
	frac = (uint64_t)(w % div);
	weight_sum_format(w / div, out);
	if (!frac)
		return;
	strbuf_addf(out, ".%0*llu", (int)d, (unsigned long long)frac);
	/* Drop trailing zeros: 1.50 prints as 1.5. */
	len = out->len;
	while (out->buf[len - 1] == '0')
		len--;
	strbuf_setlen(out, len);
}

/*
 * v (at least 0, below 999.5) with three significant digits, as perf and
 * speedscope users read amounts: 989, 98.9, 9.89, 0.99.
 */
static void
add_sig3(struct strbuf *sb, double v)
{
	if (v >= 99.95)
		strbuf_addf(sb, "%.0f", v);
	else if (v >= 9.995)
		strbuf_addf(sb, "%.1f", v);
	else
		strbuf_addf(sb, "%.2f", v);
}

struct scale_unit {
	double div;
	const char *unit;
};

/*
 * v in the largest unit of scale[] (smallest first) that keeps it at 1 or
 * more, with three significant digits; the last unit takes any size, so
 * that 20 minutes are "1200 s".
 */
static void
add_scaled(struct strbuf *sb, double v, const struct scale_unit *scale, size_t n)
{
	size_t i = 0;

	while (i + 1 < n && v / scale[i + 1].div >= 1)
		i++;
	/* 999.7 us rounds to 1000 us: say 1.00 ms. */
	if (i + 1 < n && v / scale[i].div >= 999.5)
		i++;
	/* 5 ns, 512 B: a whole number of the smallest unit needs no decimals. */
	if (v / scale[i].div >= 999.5 || (!i && v == (double)(uint64_t)v))
		strbuf_addf(sb, "%.0f", v / scale[i].div);
	else
		add_sig3(sb, v / scale[i].div);
	if (*scale[i].unit) {
		strbuf_addch(sb, ' ');
		strbuf_addstr(sb, scale[i].unit);
	}
}

static void
add_thousands(struct strbuf *sb, weight_sum v)
{
	struct strbuf digits = STRBUF_INIT;
	size_t n, lead;

	weight_sum_format(v, &digits);
	n = digits.len;
	lead = n % 3 ? n % 3 : 3;
	strbuf_add(sb, digits.buf, lead);
	for (size_t i = lead; i < n; i += 3) {
		strbuf_addch(sb, ',');
		strbuf_add(sb, digits.buf + i, 3);
	}
	strbuf_release(&digits);
}

static void
format_amount(const struct profile *p, weight_sum w, bool exact, struct strbuf *sb)
{
	static const struct scale_unit times[] = {
		{ 1, "ns" }, { 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" },
	};
	static const struct scale_unit counts[] = {
		{ 1, "" }, { 1e3, "k" }, { 1e6, "M" }, { 1e9, "G" },
		{ 1e12, "T" }, { 1e15, "P" }, { 1e18, "E" }, { 1e21, "Z" }, { 1e24, "Y" },
	};
	static const struct scale_unit bytes[] = {
		{ 1, "B" }, { 1024.0, "KiB" }, { 1048576.0, "MiB" },
		{ 1073741824.0, "GiB" }, { 1099511627776.0, "TiB" },
	};
	double v;

	/* Nothing is known exactly, scaled or not. */
	if (p->weight_shift && w) {
		struct profile q = *p;
		weight_sum unit, r = profile_unscale(p, w, &unit);

		q.weight_shift = 0;
		if (!r) {
			strbuf_addstr(sb, p->unit == UNIT_NANOSECONDS ? "~0 s" : "~0");
			return;
		}
		/* Fewer than three known digits, or all of them: say it is rounded. */
		if ((exact && p->unit != UNIT_NANOSECONDS) || r < 100 * unit)
			strbuf_addch(sb, '~');
		format_amount(&q, r, exact, sb);
		return;
	}
	v = (double)w;
	for (unsigned i = 0; i < p->weight_decimals; i++)
		v /= 10;
	if (p->unit == UNIT_NANOSECONDS) {
		/* Nothing is "0 s", not "0.00 ns". */
		if (!w)
			strbuf_addstr(sb, "0 s");
		else
			add_scaled(sb, v, times, ARRAY_SIZE(times));
		return;
	}
	if (!w) {
		strbuf_addch(sb, '0');
		return;
	}
	if (exact) {
		uint64_t div = 1;

		for (unsigned i = 0; i < p->weight_decimals; i++)
			div *= 10;
		add_thousands(sb, w / div);
		if (w % div) {
			struct strbuf frac = STRBUF_INIT;

			/* The decimals as profile_format_weight() writes them. */
			profile_format_weight(p, (uint64_t)(w % div), &frac);
			strbuf_addstr(sb, strchr(frac.buf, '.'));
			strbuf_release(&frac);
		}
		return;
	}
	if (p->unit == UNIT_BYTES)
		add_scaled(sb, v, bytes, ARRAY_SIZE(bytes));
	else if (p->weight_decimals && v < 1)
		/* A fraction has no SI prefix that helps: 0.25 as written. */
		profile_format_weight_sum(p, w, sb);
	else if (v < 1000 && !p->weight_decimals)
		strbuf_addf(sb, "%llu", (unsigned long long)w);
	else
		add_scaled(sb, v, counts, ARRAY_SIZE(counts));
}

void
profile_format_amount(const struct profile *p, uint64_t w, struct strbuf *sb)
{
	format_amount(p, w, true, sb);
}

void
profile_format_amount_sum(const struct profile *p, weight_sum w, struct strbuf *sb)
{
	format_amount(p, w, true, sb);
}

void
profile_format_amount_short(const struct profile *p, uint64_t w, struct strbuf *sb)
{
	format_amount(p, w, false, sb);
}

bool
profile_format_share(uint64_t part, uint64_t whole, struct strbuf *sb)
{
	double pct;

	if (!whole)
		return false;
	pct = 100.0 * (double)part / (double)whole;
	if (part == whole)
		strbuf_addstr(sb, "100%");
	else if (!part)
		strbuf_addstr(sb, "0%");
	else if (pct < 0.05)
		strbuf_addstr(sb, "<0.1%");
	else if (part < whole && pct >= 99.95)
		/* Not all of it: never round up to 100%. */
		strbuf_addstr(sb, "99.9%");
	else
		strbuf_addf(sb, "%.1f%%", pct);
	return true;
}

/* Stack s of a set merged loose, its stacks appended from stack first on. */
static inline stack_id
loose_id(uint32_t first, stack_id s)
{
	return s == STACK_ROOT ? STACK_ROOT : first + s - 1;
}

/*
 * Append src's stacks to dst's loose stacks; fmap maps src's frames to
 * dst's. Returns the id in dst of src's stack 1 (see loose_id()).
 */
static uint32_t
merge_loose_stacks(struct profile_set *dst, struct profile_set *src, const uint32_t *fmap)
{
	const struct stack_node *from = src->stacks;
	uint32_t n = src->nr_stacks - 1;
	uint64_t first = (uint64_t)dst->nr_stacks + dst->nr_loose;
	struct stack_node *to;

	if (first + n >= STACK_BUSY - 2)
		die("too many distinct stacks");
	if (!dst->loose) {
		/* Take src's table, each entry one down (its root goes): no new memory. */
		dst->loose = src->stacks;
		dst->alloc_loose = src->alloc_stacks;
		src->stacks = NULL;
		free(src->kids.link);
		free(src->kids.hub_slots);
		src->kids.link = NULL;
		src->kids.hub_slots = NULL;
		stacks_init(src); /* empty, but valid */
	} else {
		ALLOC_GROW_BY(dst->loose, dst->nr_loose, n, dst->alloc_loose);
	}
	/* In order: in a taken table, entry i + 1 is read before entry i is written. */
	to = dst->loose + dst->nr_loose;
	for (uint32_t i = 0; i < n; i++) {
		struct stack_node e = from[i + 1];

		to[i] = (struct stack_node){ loose_id((uint32_t)first, e.parent), fmap[e.frame],
					     e.depth };
	}
	dst->nr_loose += n;
	return (uint32_t)first;
}

static int
merge(struct profile_set *dst, struct profile_set *src, uint64_t line_offset, bool loose,
      struct tf_error *err)
{
	uint32_t *smap = xmalloc(sizeof(*smap) * (intern_count(&src->strings) + 1));
	uint32_t *fmap = xmalloc(sizeof(*fmap) * ((size_t)src->nr_frames + 1));
	/* src's stacks in dst: kmap[], or from first on when loose (loose_id()). */
	uint32_t *kmap = NULL, first = 0;
	uint32_t *tmap = xmalloc(sizeof(*tmap) * ((size_t)src->nr_threads + 1));
	uint32_t *qmap = xmalloc(sizeof(*qmap) * ((size_t)src->nr_srcs + 1));
	int ret = 0;

	for (uint32_t i = 0; i < intern_count(&src->strings); i++)
		smap[i] = intern_str(&dst->strings, intern_get(&src->strings, i),
				     intern_len(&src->strings, i));
	for (uint32_t i = 0; i < src->nr_frames; i++) {
		struct frame f = src->frames[i];

		f.name = smap[f.name];
		f.module = smap[f.module];
		f.file = smap[f.file];
		fmap[i] = profile_set_frame(dst, &f);
	}
	if (loose) {
		first = merge_loose_stacks(dst, src, fmap);
	} else {
		kmap = xmalloc(sizeof(*kmap) * ((size_t)src->nr_stacks + 1));
		/*
		 * Room for all of src's stacks at once: grown by half at a
		 * time, dst's table was copied again and again into fresh
		 * pages (a sixth of a deep-stacked profile's load). What the
		 * stacks dst holds already leave unused is untouched memory.
		 */
		profile_set_reserve_stacks(dst, src->nr_stacks);
		/* Parents always precede children, so one forward pass suffices. */
		kmap[STACK_ROOT] = STACK_ROOT;
		for (uint32_t i = 1; i < src->nr_stacks; i++)
			kmap[i] = profile_set_stack(dst, kmap[src->stacks[i].parent],
						    fmap[src->stacks[i].frame]);
	}
	for (uint32_t i = 0; i < src->nr_threads; i++)
		tmap[i] = profile_set_thread(dst, src->threads[i].pid, src->threads[i].tid,
					     smap[src->threads[i].comm]);
	qmap[SRC_ROOT] = SRC_ROOT;
	for (uint32_t i = 1; i < src->nr_srcs; i++) {
		const struct src_node *n = &src->srcs[i];

		qmap[i] = profile_set_src(dst, qmap[n->parent], kmap[n->stack], smap[n->file],
					  n->line);
	}

	for (size_t pi = 0; pi < src->nr_profiles && !ret; pi++) {
		struct profile *sp = src->profiles[pi];
		struct profile *dp = profile_set_profile(dst, smap[sp->name], sp->unit);
		uint64_t mul = 1;
		size_t base, moved;

		/* Samples are spans only if all of them are. */
		dp->spans = dp->nr_samples ? dp->spans && sp->spans : sp->spans;
		dp->no_samples = dp->nr_samples ? dp->no_samples || sp->no_samples
						: sp->no_samples;
		if (sp->weight_decimals > dp->weight_decimals &&
		    profile_set_decimals(dp, sp->weight_decimals, err)) {
			ret = -1;
			break;
		}
		for (unsigned d = sp->weight_decimals; d < dp->weight_decimals; d++)
			mul *= 10;
		if (mul > 1) {
			for (size_t i = 0; i < sp->nr_samples; i++)
				if (sp->weight[i] > UINT64_MAX / mul) {
					ret = tf_error_set(err, "a weight with %u decimals "
							   "overflows 64 bits",
							   dp->weight_decimals);
					break;
				}
			if (ret)
				break;
		}
		if (sp->src && !dp->src)
			dp->src = xcalloc(dp->alloc_samples ? dp->alloc_samples : 1,
					  sizeof(*dp->src));
		/*
		 * Figures describe all of a profile's samples: they add up
		 * when both sides have them, or carry over when only one side
		 * has samples; samples without figures make them wrong.
		 */
		if (!sp->nr_samples && !sp->figures) {
			/* nothing of src's changes dst's figures */
		} else if (!dp->nr_samples && !dp->figures) {
			append_figures(dp, sp, fmap, mul);
		} else if (dp->figures && sp->figures) {
			append_figures(dp, sp, fmap, mul);
		} else {
			profile_drop_figures(dp);
		}
		grow_samples(dp, dp->nr_samples + sp->nr_samples);
		base = dp->nr_samples;
		moved = sp->nr_samples;
		/*
		 * From the end, a chunk at a time, giving src's memory back as
		 * it goes: both sets' samples are never held in full at once.
		 */
		for (size_t end = sp->nr_samples; end > 0;) {
			size_t start = end > MERGE_CHUNK ? end - MERGE_CHUNK : 0;

			for (size_t i = start; i < end; i++) {
				dp->stack[base + i] = kmap ? kmap[sp->stack[i]]
							   : loose_id(first, sp->stack[i]);
				dp->weight[base + i] = sp->weight[i] * mul;
				dp->time[base + i] = sp->time[i];
				dp->thread[base + i] = tmap[sp->thread[i]];
				if (dp->src)
					dp->src[base + i] = sp->src ? qmap[sp->src[i]] : SRC_ROOT;
			}
			end = start;
			if (end && sp->alloc_samples - end >= MERGE_CHUNK)
				resize_samples(sp, end); /* give the rest back */
		}
		dp->nr_samples += moved;
		dp->total_weight += sp->total_weight * mul;
		if (sp->has_time) {
			note_time(dp, sp->time_min);
			note_time(dp, sp->time_max);
		}
		sp->nr_samples = 0;
		sp->total_weight = 0;
	}
	for (size_t i = 0; i < src->nr_diags; i++) {
		add_diag(dst, src->diags[i].line ? src->diags[i].line + line_offset : 0,
			 src->diags[i].msg);
		src->diags[i].msg = NULL;
	}
	src->nr_diags = 0;
	/*
	 * What the set is, from the first source that says: a parallel perf
	 * load merges ranges that do not (their loader marks the set alone).
	 */
	if (!dst->format && src->format) {
		dst->format = src->format;
		dst->perf_script = src->perf_script;
	}

	free(smap);
	free(fmap);
	free(kmap);
	free(tmap);
	free(qmap);
	return ret;
}

int
profile_set_merge(struct profile_set *dst, struct profile_set *src, uint64_t line_offset,
		  struct tf_error *err)
{
	profile_set_intern_loose(dst);
	profile_set_intern_loose(src);
	return merge(dst, src, line_offset, false, err);
}

int
profile_set_merge_loose(struct profile_set *dst, struct profile_set *src, uint64_t line_offset,
			struct tf_error *err)
{
	if (dst->nr_srcs > 1 || src->nr_srcs > 1)
		return profile_set_merge(dst, src, line_offset, err);
	profile_set_intern_loose(src);
	return merge(dst, src, line_offset, true, err);
}

/* The flattened answers of a rewrite: what old frame f became is [first[f], first[f + 1]). */
struct rewrite_map {
	uint32_t *first;
	frame_id *ids;
	str_id *file;
	uint32_t *line;
	size_t nr, alloc;
	bool positions; /* some answer gave positions */
	bool *absorbs;  /* per old frame: absorbs_inlined, or NULL if none did */
};

/*
 * Progress of a build: units are a frame (weighed REWRITE_FRAME_UNITS:
 * its answer may have to be looked up), a stack, and REWRITE_SAMPLES
 * samples. Counted locally and published every REWRITE_PUBLISH units;
 * a cancel is seen at the next frame, or within REWRITE_STACKS stacks.
 */
#define REWRITE_FRAME_UNITS 16
#define REWRITE_SAMPLES 8
#define REWRITE_PUBLISH 4096
#define REWRITE_STACKS 4096 /* stacks built between two looks at the cancel */
#define REWRITE_AHEAD 16    /* stacks between the fetch of a far parent and its use */

struct rewrite_run {
	const struct rewrite_opts *o;
	uint64_t pending;
};

static bool
rewrite_step(struct rewrite_run *r, uint64_t units)
{
	const struct rewrite_opts *o = r->o;

	if (!o)
		return true;
	r->pending += units;
	if (r->pending >= REWRITE_PUBLISH) {
		if (o->done)
			atomic_fetch_add_explicit(o->done, r->pending, memory_order_relaxed);
		r->pending = 0;
	}
	return !o->cancel || !atomic_load_explicit(o->cancel, memory_order_relaxed);
}

static void
rewrite_map_release(struct rewrite_map *m)
{
	free(m->absorbs);
	free(m->first);
	free(m->ids);
	free(m->file);
	free(m->line);
}

/* Every answer of fn, its frames interned in out. False if cancelled. */
static bool
rewrite_frames(struct profile_set *out, const struct frame *old, uint32_t nold,
	       frame_rewrite_fn *fn, void *ctx, struct rewrite_map *m, struct rewrite_run *run)
{
	m->first = xmalloc(sizeof(*m->first) * ((size_t)nold + 1));
	for (uint32_t f = 0; f < nold; f++) {
		struct frame_rewrite rw = { NULL, NULL, NULL, 0, false };

		if (!rewrite_step(run, REWRITE_FRAME_UNITS))
			return false;
		fn(ctx, out, &old[f], &rw);
		if (!rw.nr) {
			/* Nothing to say: the frame stays as it was. */
			rw.frames = &old[f];
			rw.file = NULL;
			rw.line = NULL;
			rw.nr = 1;
		}
		if (rw.nr > UINT32_MAX - m->nr)
			die("too many frames");
		m->first[f] = (uint32_t)m->nr;
		if (rw.absorbs_inlined) {
			if (!m->absorbs)
				m->absorbs = xcalloc((size_t)nold + 1, sizeof(*m->absorbs));
			m->absorbs[f] = true;
		}
		if (m->nr + rw.nr > m->alloc) {
			m->alloc = (m->nr + rw.nr) * 2;
			m->ids = xreallocarray(m->ids, m->alloc, sizeof(*m->ids));
			m->file = xreallocarray(m->file, m->alloc, sizeof(*m->file));
			m->line = xreallocarray(m->line, m->alloc, sizeof(*m->line));
		}
		for (size_t i = 0; i < rw.nr; i++, m->nr++) {
			const struct frame *nf = &rw.frames[i];

			m->ids[m->nr] = profile_set_frame(out, nf);
			if (rw.file) {
				m->file[m->nr] = rw.file[i];
				m->line[m->nr] = rw.line[i];
				m->positions = true;
			} else if (nf->flags & FRAME_HAS_LINE) {
				m->file[m->nr] = nf->file;
				m->line[m->nr] = nf->line;
			} else {
				m->file[m->nr] = STR_EMPTY;
				m->line[m->nr] = 0;
			}
		}
	}
	m->first[nold] = (uint32_t)m->nr;
	return true;
}

/*
 * Fresh memory costs a page fault per page at its first write, and the
 * kernel's zeroing of those pages was about half of what rebuilding the
 * stacks of a big profile took. So a helper thread asks the kernel for
 * the pages of the arrays the rebuild fills (MADV_POPULATE_WRITE), a
 * little ahead of the writer, which says every so often how far it got:
 * the zeroing runs on another core, and no more than 2 * PREFAULT_AHEAD of
 * an array is populated that the writer may never reach. The helper writes
 * nothing (the kernel only maps zeroed pages in), so it races with
 * nobody; the arrays must only stay where they are until prefault_stop().
 */
#define PREFAULT_REGIONS 4
#define PREFAULT_MIN (8u << 20)   /* bytes below which a thread is not worth it */
#define PREFAULT_AHEAD (4u << 20) /* bytes of an array populated past the writer */
#define PREFAULT_NAP_NS 250000    /* the helper's nap when it is that far ahead */

enum prefault_index { PREFAULT_BY_NEW, PREFAULT_BY_OLD };

struct prefault_region {
	char *start;         /* page-aligned */
	size_t len;          /* whole pages */
	size_t done;         /* bytes populated */
	size_t width;        /* bytes per entry */
	size_t skip;         /* bytes of the array before start */
	enum prefault_index by; /* which of the writer's indexes it follows */
};

struct prefault {
	struct prefault_region region[PREFAULT_REGIONS];
	unsigned nr;
	size_t total;
	_Atomic size_t at[2]; /* how far the writer got, by enum prefault_index */
	atomic_bool stop;
	bool started;
	pthread_t thread;
};

/*
 * Add the array p of nr entries of width bytes, filled in the order of
 * the writer's index by, to what pf populates.
 */
static void
prefault_add(struct prefault *pf, void *p, size_t nr, size_t width, enum prefault_index by)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t b = ((uintptr_t)p + nr * width) & ~(page - 1);
	struct prefault_region *g = &pf->region[pf->nr];

	if (!p || b <= a || pf->nr == PREFAULT_REGIONS)
		return;
	g->start = (char *)a;
	g->len = b - a;
	g->done = 0;
	g->width = width;
	g->skip = a - (uintptr_t)p;
	g->by = by;
	pf->nr++;
	pf->total += g->len;
}

static void *
prefault_run(void *arg)
{
	struct prefault *pf = arg;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	while (!atomic_load_explicit(&pf->stop, memory_order_relaxed)) {
		bool moved = false, left = false;

		for (unsigned r = 0; r < pf->nr; r++) {
			struct prefault_region *g = &pf->region[r];
			size_t at = atomic_load_explicit(&pf->at[g->by], memory_order_relaxed);
			size_t reached = at * g->width, want;

			reached = reached > g->skip ? reached - g->skip : 0;
			/*
			 * Less than PREFAULT_AHEAD left before the writer: up to
			 * twice that, in whole pages. Between two such steps the
			 * helper naps rather than waking at every report.
			 */
			if (g->done >= g->len || g->done >= reached + PREFAULT_AHEAD) {
				left |= g->done < g->len;
				continue;
			}
			want = (reached + 2 * PREFAULT_AHEAD) & ~(page - 1);
			if (want > g->len)
				want = g->len;
			if (want > g->done) {
#ifdef MADV_POPULATE_WRITE
				/* Failing (a kernel older than 5.14): the writer faults them in. */
				if (madvise(g->start + g->done, want - g->done, MADV_POPULATE_WRITE))
					return NULL;
#endif
				g->done = want;
				moved = true;
			}
			left |= g->done < g->len;
		}
		if (!left)
			break;
		if (!moved)
			nanosleep(&(struct timespec){ 0, PREFAULT_NAP_NS }, NULL);
	}
	return NULL;
}

/* Start populating what was added, if it is worth a thread. */
static void
prefault_start(struct prefault *pf)
{
	atomic_init(&pf->at[PREFAULT_BY_NEW], 0);
	atomic_init(&pf->at[PREFAULT_BY_OLD], 0);
	atomic_init(&pf->stop, false);
#ifdef MADV_POPULATE_WRITE
	if (pf->total >= PREFAULT_MIN)
		pf->started = !pthread_create(&pf->thread, NULL, prefault_run, pf);
#endif
}

/* The writer filled the entries before new of the new arrays, old of the old. */
static inline void
prefault_progress(struct prefault *pf, size_t new, size_t old)
{
	atomic_store_explicit(&pf->at[PREFAULT_BY_NEW], new, memory_order_relaxed);
	atomic_store_explicit(&pf->at[PREFAULT_BY_OLD], old, memory_order_relaxed);
}

/* Stop populating: the arrays may move or go after this. */
static void
prefault_stop(struct prefault *pf)
{
	if (!pf->started)
		return;
	atomic_store(&pf->stop, true);
	pthread_join(pf->thread, NULL);
	pf->started = false;
}

/*
 * An empty set to build ps's rewrite in: a copy of its strings (every
 * str_id of ps means the same there) and of its threads, and one profile
 * per profile of ps with room for its samples' stacks only.
 */
static struct profile_set *
rewrite_shadow(const struct profile_set *ps, bool stacks)
{
	struct profile_set *out = profile_set_new();

	intern_release(&out->strings);
	intern_copy(&out->strings, &ps->strings);
	free(out->thread_slots);
	out->nr_threads = out->alloc_threads = ps->nr_threads;
	out->threads = ps->nr_threads ? xmemdup(ps->threads, sizeof(*ps->threads) * ps->nr_threads)
				      : NULL;
	out->thread_mask = ps->thread_mask;
	out->thread_slots = xmemdup(ps->thread_slots,
				    sizeof(*ps->thread_slots) * ((size_t)ps->thread_mask + 1));
	for (size_t i = 0; i < ps->nr_profiles; i++) {
		const struct profile *p = ps->profiles[i];
		struct profile *q = xcalloc(1, sizeof(*q));

		*q = *p;
		q->stack = stacks ? xreallocarray(NULL, p->alloc_samples ? p->alloc_samples : 1,
						  sizeof(*q->stack))
				  : NULL;
		q->src = NULL;
		q->weight = NULL;
		q->time = NULL;
		q->thread = NULL;
		q->figures = NULL; /* remade on the new frames by rewrite_build() */
		q->nr_figures = q->alloc_figures = 0;
		ALLOC_GROW(out->profiles, out->nr_profiles, out->alloc_profiles);
		out->profiles[out->nr_profiles++] = q;
	}
	out->format = ps->format;
	out->perf_script = ps->perf_script;
	return out;
}

/*
 * The build of ps, which it reads. consumed is NULL, or ps itself when it
 * is a shadow its owner gives up: the samples' stack and position arrays
 * are then rewritten in place and move to the result (saving their memory
 * on a big profile).
 */
static struct profile_set *
rewrite_build(const struct profile_set *ps, struct profile_set *consumed, frame_rewrite_fn *fn,
	      void *ctx, const struct rewrite_opts *o, stack_id **map_out)
{
	bool consume = consumed != NULL;
	const struct frame *old = ps->frames;
	const struct src_node *osrc = ps->srcs;
	uint32_t nold = ps->nr_frames, nosrc = ps->nr_srcs;
	/* The old stacks: ps's, then its loose ones, stacks [nint, nstk). */
	uint32_t nint = ps->nr_stacks, nstk = ps->nr_stacks + ps->nr_loose;
	struct rewrite_run run = { o, 0 };
	struct profile_set *out;
	struct rewrite_map m;
	stack_id *smap;
	src_id *qmap = NULL, *pmap = NULL;
	bool *absorbing = NULL; /* per old stack: its frame's chain absorbs inlined frames */
	/*
	 * Per old frame, with absorbing: bit 0 its chain absorbs, bit 1 it is
	 * inlined. A byte each rather than the frames' flags, 32 bytes apart:
	 * a stack's frame is any of them, and that read missed the cache.
	 */
	uint8_t *fbits = NULL;
	bool carry; /* the old positions still hold: carry them over */
	uint64_t nsamples = 0, bound = 0;
	struct prefault pf;

	for (size_t pi = 0; pi < ps->nr_profiles; pi++)
		nsamples += ps->profiles[pi]->nr_samples;
	if (o && o->total)
		atomic_fetch_add(o->total, (uint64_t)nold * REWRITE_FRAME_UNITS + nstk +
					       nsamples / REWRITE_SAMPLES);
	memset(&m, 0, sizeof(m));
	out = rewrite_shadow(ps, !consume);
	if (!rewrite_frames(out, old, nold, fn, ctx, &m, &run))
		goto cancelled;
	if (o && o->frames_done)
		o->frames_done(ctx);

	/* Frame for frame, the old positions stay true of the new stacks. */
	carry = !m.positions && !m.absorbs && m.nr == nold && nosrc > 1;
	/* New stacks and positions; parents precede children, so one pass. */
	smap = xmalloc(sizeof(*smap) * nstk);
	if (m.positions)
		qmap = xmalloc(sizeof(*qmap) * nstk);
	smap[STACK_ROOT] = STACK_ROOT;
	if (qmap)
		qmap[STACK_ROOT] = SRC_ROOT;
	if (m.absorbs) {
		absorbing = xcalloc(nstk, sizeof(*absorbing));
		fbits = xmalloc(nold + 1);
		for (uint32_t f = 0; f < nold; f++)
			fbits[f] = (uint8_t)(m.absorbs[f] | !!(old[f].flags & FRAME_INLINED) << 1);
	}
	/*
	 * Room for every stack the chains could make (fewer when some are
	 * the same): one table, not a rehash per doubling, and nothing
	 * moves under the helper.
	 */
	for (uint32_t s = 1; s < nstk; s++) {
		frame_id f = s < nint ? ps->stacks[s].frame : ps->loose[s - nint].frame;

		bound += m.first[f + 1] - m.first[f];
	}
	profile_set_reserve_stacks(out, bound < STACK_BUSY - 2 - out->nr_stacks
						? (uint32_t)bound
						: STACK_BUSY - 2 - out->nr_stacks);
	/* Written whole, and moved no more (xalloc.h). */
	xalloc_huge(out->stacks, sizeof(*out->stacks) * out->alloc_stacks);
	xalloc_huge(out->kids.link, sizeof(*out->kids.link) * out->alloc_stacks);
	memset(&pf, 0, sizeof(pf));
	prefault_add(&pf, out->stacks, out->alloc_stacks, sizeof(*out->stacks), PREFAULT_BY_NEW);
	prefault_add(&pf, out->kids.link, out->alloc_stacks, sizeof(*out->kids.link),
		     PREFAULT_BY_NEW);
	prefault_add(&pf, smap, nstk, sizeof(*smap), PREFAULT_BY_OLD);
	prefault_add(&pf, qmap, nstk, sizeof(*qmap), PREFAULT_BY_OLD);
	prefault_start(&pf);
	for (uint32_t s = 1; s < nstk; s++) {
		/* Old stack s, and those after it up to end, in one table or the other. */
		const struct stack_node *os = s < nint ? &ps->stacks[s] : &ps->loose[s - nint];
		uint32_t end = s < nint ? nint : nstk;
		frame_id f = os->frame;
		stack_id cur = smap[os->parent];
		src_id q = qmap ? qmap[os->parent] : SRC_ROOT;

		if (!(s % REWRITE_STACKS)) {
			prefault_progress(&pf, out->nr_stacks, s);
			if (!rewrite_step(&run, REWRITE_STACKS)) {
				prefault_stop(&pf);
				free(smap);
				free(qmap);
				free(absorbing);
				free(fbits);
				goto cancelled;
			}
		}
		if (s + 2 * REWRITE_AHEAD < end) {
			/*
			 * Most stacks continue the one before. One that starts
			 * from a stack made long ago finds that one's new stack
			 * and its children far away in memory: fetch them a few
			 * stacks ahead, one link of the chain at a time.
			 */
			stack_id p = os[2 * REWRITE_AHEAD].parent;

			__builtin_prefetch(&smap[p]);
			if (absorbing)
				__builtin_prefetch(&absorbing[p]);
			p = os[REWRITE_AHEAD].parent;
			if (p < s) {
				stack_id np = smap[p];

				__builtin_prefetch(&out->kids.link[np]);
				__builtin_prefetch(&out->stacks[np]);
			}
			p = os[REWRITE_AHEAD / 2].parent;
			if (p < s) {
				stack_id c = out->kids.link[smap[p]].first & ~STACK_BUSY;

				if (c != STACK_ROOT)
					__builtin_prefetch(&out->kids.link[c]);
			}
		}
		if (absorbing) {
			if (absorbing[os->parent] && (fbits[f] & 2)) {
				/* Said already by the chain below it. */
				smap[s] = cur;
				if (qmap)
					qmap[s] = q;
				absorbing[s] = true;
				continue;
			}
			absorbing[s] = fbits[f] & 1;
		}

		for (uint32_t k = m.first[f]; k < m.first[f + 1]; k++) {
			cur = stack_get(out, cur, m.ids[k]);
			if (qmap)
				q = profile_set_src(out, q, cur, m.file[k], m.line[k]);
		}
		smap[s] = cur;
		if (qmap)
			qmap[s] = q;
	}
	prefault_stop(&pf);
	/* Chains that met stacks made already left room over: give it back. */
	if (out->alloc_stacks - out->nr_stacks > out->nr_stacks / 4)
		stacks_resize(out, out->nr_stacks);
	free(absorbing);
	free(fbits);
	if (carry) {
		pmap = xmalloc(sizeof(*pmap) * nosrc);
		pmap[SRC_ROOT] = SRC_ROOT;
		for (uint32_t i = 1; i < nosrc; i++)
			pmap[i] = profile_set_src(out, pmap[osrc[i].parent], smap[osrc[i].stack],
						  osrc[i].file, osrc[i].line);
	}

	for (size_t pi = 0; pi < ps->nr_profiles; pi++) {
		const struct profile *p = ps->profiles[pi];
		struct profile *q = out->profiles[pi];
		size_t room = p->alloc_samples ? p->alloc_samples : 1;

		/* A function's figures go to what its frame became, outermost first. */
		for (uint32_t i = 0; i < p->nr_figures; i++) {
			const struct func_figure *f = &p->figures[i];

			profile_add_figure(q, m.ids[m.first[f->frame]], f->self, f->total);
		}
		if (pmap && p->src) {
			q->src = consume ? consumed->profiles[pi]->src
					 : xreallocarray(NULL, room, sizeof(*q->src));
			for (size_t i = 0; i < p->nr_samples; i++)
				q->src[i] = pmap[p->src[i]];
		} else if (qmap) {
			q->src = xreallocarray(NULL, room, sizeof(*q->src));
			for (size_t i = 0; i < p->nr_samples; i++)
				q->src[i] = qmap[p->stack[i]];
		}
		if (consume) {
			struct profile *c = consumed->profiles[pi];

			if (q->src != c->src)
				free(c->src);
			c->src = NULL;
			q->stack = c->stack;
			c->stack = NULL;
		}
		for (size_t i = 0; i < p->nr_samples; i++) {
			q->stack[i] = smap[consume ? q->stack[i] : p->stack[i]];
			if (i && !(i % REWRITE_PUBLISH))
				rewrite_step(&run, REWRITE_PUBLISH / REWRITE_SAMPLES);
		}
	}
	if (o && o->done && o->total)
		atomic_store(o->done, atomic_load(o->total));
	free(qmap);
	free(pmap);
	rewrite_map_release(&m);
	if (map_out)
		*map_out = smap;
	else
		free(smap);
	return out;

cancelled:
	rewrite_map_release(&m);
	profile_set_free(out);
	return NULL;
}

struct profile_set *
profile_set_rewrite_build(const struct profile_set *ps, frame_rewrite_fn *fn, void *ctx,
			  const struct rewrite_opts *o, stack_id **map_out)
{
	return rewrite_build(ps, NULL, fn, ctx, o, map_out);
}

struct profile_set *
profile_set_rewrite_consume(struct profile_set *shadow, frame_rewrite_fn *fn, void *ctx,
			    const struct rewrite_opts *o, stack_id **map_out)
{
	return rewrite_build(shadow, shadow, fn, ctx, o, map_out);
}

static void
swap_figures(struct profile *p, struct profile *q)
{
	struct func_figure *f = p->figures;
	uint32_t nr = p->nr_figures, alloc = p->alloc_figures;

	p->figures = q->figures;
	p->nr_figures = q->nr_figures;
	p->alloc_figures = q->alloc_figures;
	q->figures = f;
	q->nr_figures = nr;
	q->alloc_figures = alloc;
}

void
profile_set_swap_tables(struct profile_set *a, struct profile_set *b)
{
	struct profile_set ta = *a, tb = *b;

	if (a->nr_profiles != b->nr_profiles)
		BUG("swapping the tables of sets of %zu and %zu profiles", a->nr_profiles,
		    b->nr_profiles);
	/*
	 * Everything changes hands but the profiles, the warnings and what the
	 * set is: its format, and with it whether it is perf script's.
	 */
	*a = tb;
	*b = ta;
#define KEEP(m) (a->m = ta.m, b->m = tb.m)
	KEEP(profiles);
	KEEP(nr_profiles);
	KEEP(alloc_profiles);
	KEEP(diags);
	KEEP(nr_diags);
	KEEP(alloc_diags);
	KEEP(format);
	KEEP(perf_script);
#undef KEEP
	for (size_t i = 0; i < a->nr_profiles; i++) {
		struct profile *p = a->profiles[i], *q = b->profiles[i];
		stack_id *stk;
		src_id *src;

		if (p->nr_samples != q->nr_samples || p->alloc_samples != q->alloc_samples)
			BUG("swapping the stacks of profiles of %zu and %zu samples",
			    p->nr_samples, q->nr_samples);
		stk = p->stack;
		src = p->src;
		p->stack = q->stack;
		q->stack = stk;
		p->src = q->src;
		q->src = src;
		swap_figures(p, q); /* they name frames, which were swapped too */
	}
}

void
profile_set_rewrite(struct profile_set *ps, frame_rewrite_fn *fn, void *ctx)
{
	struct profile_set *out = profile_set_rewrite_build(ps, fn, ctx, NULL, NULL);

	profile_set_swap_tables(ps, out);
	profile_set_free(out);
}

/* Every frame as it is. */
static void
keep_frame(void *ctx, struct profile_set *ps, const struct frame *old, struct frame_rewrite *out)
{
	(void)ctx;
	(void)ps;
	(void)old;
	(void)out;
}

void
profile_set_intern_loose(struct profile_set *ps)
{
	if (ps->nr_loose)
		profile_set_rewrite(ps, keep_frame, NULL);
}

/* A table holding want entries, every one an id in [first, end). */
static int
check_slots(const uint64_t *slots, uint32_t mask, uint32_t first, uint32_t end, uint32_t want,
	    const char *what, struct tf_error *err)
{
	uint32_t used = 0;

	for (uint32_t i = 0; i <= mask; i++) {
		uint64_t e = slots[i];

		if (!e)
			continue;
		used++;
		if ((uint32_t)e - 1 >= end || (uint32_t)e - 1 < first)
			return tf_error_set(err, "%s table: slot %u names id %u of %u", what,
					    i, (uint32_t)e - 1, end);
	}
	if (used != want)
		return tf_error_set(err, "%s table: %u slots used for %u entries", what, used,
				    want);
	if ((uint64_t)used * 2 > (uint64_t)mask + 1)
		return tf_error_set(err, "%s table: more than half full", what);
	return 0;
}

/*
 * Every stack listed once, among its parent's children, with its frame
 * beside its links, busy exactly when it has more than STACK_WALK
 * children, and in the table exactly when its parent is busy.
 */
static int
check_children(const struct profile_set *ps, struct tf_error *err)
{
	const struct stack_link *link = ps->kids.link;
	uint64_t listed = 0, hub = 0;
	/* Stacks whose links are deferred are in no list yet. */
	uint32_t linked = ps->unlinked_from ? ps->unlinked_from : ps->nr_stacks;

	for (uint32_t p = 0; p < linked; p++) {
		bool busy = link[p].first & STACK_BUSY;
		uint32_t n = 0;

		if (p && link[p].frame != ps->stacks[p].frame)
			return tf_error_set(err, "stack %u: links name frame %u, not %u", p,
					    link[p].frame, ps->stacks[p].frame);
		for (stack_id s = link[p].first & ~STACK_BUSY; s != STACK_ROOT; s = link[s].next) {
			if (s >= linked || ps->stacks[s].parent != p || ++n > ps->nr_stacks)
				return tf_error_set(err, "stack %u: child list broken at %u", p, s);
		}
		if (busy != (n > STACK_WALK))
			return tf_error_set(err, "stack %u: %u children counted as %s", p, n,
					    busy ? "busy" : "few");
		listed += n;
		if (busy)
			hub += n;
	}
	if (listed != linked - 1)
		return tf_error_set(err, "%" PRIu64 " stacks listed as children of %u", listed,
				    linked - 1);
	if (hub != ps->kids.nr_hub)
		return tf_error_set(err, "%u stacks in the table of busy stacks' children, not %"
				    PRIu64, ps->kids.nr_hub, hub);
	return 0;
}

int
profile_set_check(const struct profile_set *ps, struct tf_error *err)
{
	uint32_t nstr = intern_count(&ps->strings);
	uint32_t pos, walked;

	if (intern_check(&ps->strings, err))
		return -1;
	if (ps->nr_loose)
		return tf_error_set(err, "%u loose stacks", ps->nr_loose);
	if (check_slots(ps->frame_slots, ps->frame_mask, 0, ps->nr_frames, ps->nr_frames, "frame",
			err) ||
	    check_slots(ps->kids.hub_slots, ps->kids.hub_mask, 1, ps->nr_stacks, ps->kids.nr_hub,
			"stack", err) ||
	    check_slots(ps->thread_slots, ps->thread_mask, 0, ps->nr_threads, ps->nr_threads,
			"thread", err) ||
	    check_slots(ps->src_slots, ps->src_mask, 1, ps->nr_srcs, ps->nr_srcs - 1, "position",
			err))
		return -1;
	for (uint32_t i = 0; i < ps->nr_frames; i++) {
		const struct frame *f = &ps->frames[i];

		if (f->name >= nstr || f->module >= nstr || f->file >= nstr)
			return tf_error_set(err, "frame %u: string id out of range", i);
		if (frame_find(ps, f, (uint32_t)frame_hash(f), &pos) != i)
			return tf_error_set(err, "frame %u: interned twice or not findable", i);
	}
	if (ps->nr_stacks < 1 || ps->stacks[0].parent != STACK_ROOT ||
	    ps->stacks[0].frame != FRAME_NONE || ps->stacks[0].depth != 0)
		return tf_error_set(err, "stack 0 is not the empty root stack");
	for (uint32_t i = 1; i < ps->nr_stacks; i++) {
		const struct stack_node *n = &ps->stacks[i];

		if (n->parent >= i)
			return tf_error_set(err, "stack %u: parent %u does not precede it", i,
					    n->parent);
		if (n->frame >= ps->nr_frames)
			return tf_error_set(err, "stack %u: frame %u out of range", i, n->frame);
		if (n->depth != ps->stacks[n->parent].depth + 1)
			return tf_error_set(err, "stack %u: depth %u under parent of depth %u",
					    i, n->depth, ps->stacks[n->parent].depth);
	}
	if (ps->unlinked_from >= ps->nr_stacks)
		return tf_error_set(err, "links deferred from stack %u of %u", ps->unlinked_from,
				    ps->nr_stacks);
	/* The lists first: a lookup would walk a broken one for ever. */
	if (check_children(ps, err))
		return -1;
	for (uint32_t i = 1; i < (ps->unlinked_from ? ps->unlinked_from : ps->nr_stacks); i++)
		if (stack_lookup(ps, ps->stacks[i].parent, ps->stacks[i].frame, &walked) != i)
			return tf_error_set(err, "stack %u: interned twice or not findable", i);
	if (ps->nr_srcs < 1 || ps->srcs[0].parent != SRC_ROOT || ps->srcs[0].stack != STACK_ROOT)
		return tf_error_set(err, "position 0 is not the root position");
	for (uint32_t i = 1; i < ps->nr_srcs; i++) {
		const struct src_node *n = &ps->srcs[i];

		if (n->parent >= i)
			return tf_error_set(err, "position %u: parent %u does not precede it", i,
					    n->parent);
		if (n->stack == STACK_ROOT || n->stack >= ps->nr_stacks || n->file >= nstr)
			return tf_error_set(err, "position %u: stack or file out of range", i);
		if (ps->stacks[n->stack].parent != ps->srcs[n->parent].stack)
			return tf_error_set(err, "position %u: its stack does not extend its "
					    "parent's", i);
		if (src_find(ps, n, (uint32_t)src_hash(n->parent, n->stack, n->file, n->line),
			     &pos) != i)
			return tf_error_set(err, "position %u: interned twice or not findable", i);
	}
	for (uint32_t i = 0; i < ps->nr_threads; i++) {
		const struct thread *t = &ps->threads[i];
		thread_id same;

		if (t->comm >= nstr)
			return tf_error_set(err, "thread %u: comm out of range", i);
		if (thread_find(ps, t->pid, t->tid, t->comm,
				(uint32_t)thread_hash(t->pid, t->tid, t->comm), &pos, &same) != i)
			return tf_error_set(err, "thread %u: interned twice or not findable", i);
		if (t->first > i || (t->next != THREAD_NONE && (t->next <= i ||
								t->next >= ps->nr_threads)))
			return tf_error_set(err, "thread %u: linked out of order", i);
		if (t->next != THREAD_NONE &&
		    (ps->threads[t->next].first != t->first || ps->threads[t->next].pid != t->pid ||
		     ps->threads[t->next].tid != t->tid || t->tid < 0))
			return tf_error_set(err, "thread %u: linked to another thread's entry", i);
		if (t->first != i && (ps->threads[t->first].first != t->first ||
				      ps->threads[t->first].tid != t->tid ||
				      ps->threads[t->first].pid != t->pid))
			return tf_error_set(err, "thread %u: its first entry is another thread's", i);
	}
	for (size_t pi = 0; pi < ps->nr_profiles; pi++) {
		const struct profile *p = ps->profiles[pi];
		weight_sum total = 0;
		int64_t tmin = INT64_MAX, tmax = INT64_MIN;

		if (p->name >= nstr)
			return tf_error_set(err, "profile %zu: name out of range", pi);
		for (size_t pj = 0; pj < pi; pj++)
			if (ps->profiles[pj]->name == p->name)
				return tf_error_set(err, "profiles %zu and %zu share a name", pj, pi);
		if (p->nr_samples > p->alloc_samples)
			return tf_error_set(err, "profile %zu: %zu samples in %zu slots", pi,
					    p->nr_samples, p->alloc_samples);
		for (size_t i = 0; i < p->nr_samples; i++) {
			if (p->stack[i] >= ps->nr_stacks)
				return tf_error_set(err, "profile %zu sample %zu: stack out of range",
						    pi, i);
			if (p->thread[i] >= ps->nr_threads)
				return tf_error_set(err, "profile %zu sample %zu: thread out of range",
						    pi, i);
			if (p->src && p->src[i] != SRC_ROOT &&
			    (p->src[i] >= ps->nr_srcs || ps->srcs[p->src[i]].stack != p->stack[i]))
				return tf_error_set(err, "profile %zu sample %zu: position is not "
						    "on its stack", pi, i);
			total += p->weight[i];
			/* A sample with no time stores 0: it bounds nothing. */
			if (p->time[i] && p->time[i] < tmin)
				tmin = p->time[i];
			if (p->time[i] && p->time[i] > tmax)
				tmax = p->time[i];
			if (p->time[i] && p->spans && profile_span_end(p->time[i], p->weight[i]) > tmax)
				tmax = profile_span_end(p->time[i], p->weight[i]);
		}
		for (uint32_t i = 0; i < p->nr_figures; i++)
			if (p->figures[i].frame >= ps->nr_frames ||
			    p->figures[i].self > p->figures[i].total)
				return tf_error_set(err, "profile %zu figure %u: frame out of range "
						    "or self above total", pi, i);
		if (p->nr_figures > p->alloc_figures)
			return tf_error_set(err, "profile %zu: %u figures in %u slots", pi,
					    p->nr_figures, p->alloc_figures);
		if (total != p->total_weight) {
			struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

			weight_sum_format(p->total_weight, &a);
			weight_sum_format(total, &b);
			tf_error_set(err, "profile %zu: total %s, weights sum to %s", pi, a.buf,
				     b.buf);
			strbuf_release(&a);
			strbuf_release(&b);
			return -1;
		}
		if (p->has_time && tmin <= tmax && (p->time_min > tmin || p->time_max < tmax))
			return tf_error_set(err, "profile %zu: time range does not cover samples",
					    pi);
	}
	return 0;
}

size_t
profile_set_memory(const struct profile_set *ps)
{
	size_t n = intern_memory(&ps->strings);

	n += (size_t)ps->alloc_frames * sizeof(*ps->frames);
	n += ((size_t)ps->frame_mask + 1) * sizeof(uint64_t);
	n += (size_t)ps->alloc_stacks * sizeof(*ps->stacks);
	n += (size_t)ps->alloc_stacks * sizeof(struct stack_link);
	n += (size_t)ps->alloc_loose * sizeof(*ps->loose);
	n += ((size_t)ps->kids.hub_mask + 1) * sizeof(uint64_t);
	n += (size_t)ps->alloc_threads * sizeof(*ps->threads);
	n += ((size_t)ps->thread_mask + 1) * sizeof(uint64_t);
	n += (size_t)ps->alloc_srcs * sizeof(*ps->srcs);
	n += ((size_t)ps->src_mask + 1) * sizeof(uint64_t);
	for (size_t i = 0; i < ps->nr_profiles; i++)
		n += ps->profiles[i]->alloc_samples *
		     (sizeof(stack_id) + sizeof(uint64_t) + sizeof(int64_t) + sizeof(thread_id) +
		      (ps->profiles[i]->src ? sizeof(src_id) : 0));
	return n;
}

bool
profile_stack_is_path(const struct profile_set *ps, stack_id s, const char *path)
{
	size_t len = strlen(path);

	/* Walk from the leaf: compare the path's pieces from its end. */
	while (s != STACK_ROOT) {
		const struct frame *f = ps_frame(ps, ps_stack(ps, s)->frame);
		const char *name = ps_get(ps, f->name);
		size_t n = strlen(name), start;

		if (n > len)
			return false;
		start = len - n;
		if (memcmp(path + start, name, n) || (start && path[start - 1] != ';'))
			return false;
		len = start ? start - 1 : 0;
		s = ps_stack(ps, s)->parent;
		if (!start)
			return s == STACK_ROOT;
	}
	return len == 0;
}
