#include "config.h"

#include "tflame/resolve.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tflame/bsearch.h"
#include "tflame/clock.h"
#include "tflame/demangle.h"
#include "tflame/intern.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/symbols.h"
#include "tflame/xalloc.h"

/* In resolve_ctx.demangled: a name not looked at yet. */
#define NAME_UNSEEN ((str_id)UINT32_MAX)

struct resolve_ctx {
	struct symbols_job *job;
	/*
	 * Per frame of the source, its answer, looked up before the rewrite
	 * by the workers (resolve_pool); NULL for the strip pass.
	 */
	struct sym_result *answers;
	const struct frame *frames; /* the source's, which answers follow */
	unsigned flags;        /* enum symbols_flags */
	bool strip;            /* drop the addresses, resolve nothing */
	int64_t unknown;       /* str_id of "[unknown]" in the source, or -1 */
	struct frame *out;     /* the answer being built, outermost first */
	str_id *file;          /* with its positions */
	uint32_t *line;
	size_t alloc;
	unsigned long resolved;  /* distinct (module, address) resolved */
	/* name -> its demangled form (itself when it has none), by str_id */
	str_id *demangled;
	uint32_t nr_demangled;
	struct strbuf scratch;
	/*
	 * Per frame of the source, NULL when no frame lacked its module: for
	 * a real function perf printed "(inlined)" (see module_unknown()),
	 * the module found to have it, and perf's name for it there.
	 */
	struct found_fn *found;
};

/* What resolve_all() found of a frame of no module (module_unknown()). */
struct found_fn {
	str_id module;        /* STR_EMPTY: none of the candidates has it */
	const char *name;     /* its ELF symbol, perf's name, or NULL */
};

struct symbols_job {
	int threads;               /* workers for the lookups; 0: one per CPU */
	struct symbolizer **syms;  /* theirs, alive until every frame is rewritten */
	int nr_syms;
	struct profile_set *src;   /* what the job reads: ps, or the tables kept aside */
	bool owns_src;             /* src is the addressed tables of SYMBOLS_SHOW_NOW */
	/*
	 * The rewrite may take src's sample arrays (profile_set_symbolize(),
	 * which applies the result at once): rewritten in place, they spare
	 * a fresh array a sample, whose pages cost more to fault in than to
	 * write (xalloc.c). src is intact after a cancel: the arrays are
	 * only touched once the stacks are built, past the last cancel point.
	 */
	bool take_samples;
	stack_id *shown;           /* SYMBOLS_SHOW_NOW: per stack of src, ps's stack */
	uint32_t nr_shown;
	struct resolve_ctx c;
	/*
	 * The modules that may have each frame of no module
	 * (module_unknown()), looked up in answers past the frames', and
	 * perf's name for the function where one has it.
	 */
	struct resolve_cand *cands;
	size_t nr_cands;
	const char **cand_names;
	struct profile_set *result; /* after symbols_job_run() */
	stack_id *map;              /* per stack of src, result's */
	struct strbuf warning;
	struct strbuf details;      /* SYMBOLS_VERBOSE: the disagreeing frames */
	/* For SYMBOLS_VERBOSE: what the lookups and the rewrite took. */
	size_t nr_lookups, nr_modules;
	int nr_workers;
	double lookup_ms, rebuild_ms;
	uint32_t nr_before, nr_after; /* stacks before and after the rewrite */
};

static str_id
intern_c(struct profile_set *ps, const char *s)
{
	return s ? ps_str(ps, s, strlen(s)) : STR_EMPTY;
}

static void
grow_answer(struct resolve_ctx *c, size_t n)
{
	if (n <= c->alloc)
		return;
	c->alloc = n * 2;
	c->out = xreallocarray(c->out, c->alloc, sizeof(*c->out));
	c->file = xreallocarray(c->file, c->alloc, sizeof(*c->file));
	c->line = xreallocarray(c->line, c->alloc, sizeof(*c->line));
}

/* The name to show for name (a str_id of ps): demangled when asked. */
static str_id
show_name(struct resolve_ctx *c, struct profile_set *ps, str_id name)
{
	str_id d;

	if (!(c->flags & SYMBOLS_DEMANGLE))
		return name;
	if (name >= c->nr_demangled) {
		uint32_t n = intern_count(&ps->strings);

		c->demangled = xreallocarray(c->demangled, n, sizeof(*c->demangled));
		memset(c->demangled + c->nr_demangled, 0xff,
		       sizeof(*c->demangled) * (n - c->nr_demangled));
		c->nr_demangled = n;
	}
	if (c->demangled[name] != NAME_UNSEEN)
		return c->demangled[name];
	d = name;
	strbuf_setlen(&c->scratch, 0);
	/* The arena never moves a string, so ps_get() survives ps_str(). */
	if (demangle_maybe_mangled(ps_get(ps, name), intern_len(&ps->strings, name)) &&
	    demangle_name(ps_get(ps, name), intern_len(&ps->strings, name), 0, &c->scratch))
		d = ps_str(ps, c->scratch.buf, c->scratch.len);
	c->demangled[name] = d;
	return d;
}

/*
 * A real function perf printed "(inlined)" with no module, its debug
 * info name differing from its symbol's: the perf importer keeps its
 * address, and resolve_all() looks for the module among those of the
 * frames around it.
 */
static bool
module_unknown(const struct frame *f)
{
	return f->addr && f->module == STR_EMPTY &&
	       !(f->flags & (FRAME_INLINED | FRAME_KERNEL | FRAME_JIT | FRAME_PROCESS));
}

/* old as it is, but for its name (demangled) and its address (gone). */
static void
keep_frame(struct resolve_ctx *c, struct profile_set *ps, const struct frame *old,
	   struct frame_rewrite *rw)
{
	grow_answer(c, 1);
	c->out[0] = *old;
	c->out[0].addr = 0;
	c->out[0].flags &= ~(uint32_t)FRAME_RETADDR;
	c->out[0].name = show_name(c, ps, old->name);
	rw->frames = c->out;
	rw->nr = 1;
}

/* Did perf name this frame itself? */
static bool
perf_named(const struct resolve_ctx *c, const struct frame *f)
{
	return !(f->flags & FRAME_UNNAMED) && f->name != STR_EMPTY &&
	       (c->unknown < 0 || f->name != (str_id)c->unknown);
}

static void
resolve_frame(void *vctx, struct profile_set *ps, const struct frame *old,
	      struct frame_rewrite *rw)
{
	struct resolve_ctx *c = vctx;
	struct sym_result r = { NULL, 0 };
	const struct found_fn *found = NULL;
	str_id module = old->module;
	size_t n = 0;

	keep_frame(c, ps, old, rw);
	if (c->strip || !c->answers)
		return;
	r = c->answers[old - c->frames];
	if (!r.nr_frames)
		return; /* perf's name, without the address */
	if (c->found && module_unknown(old)) {
		found = &c->found[old - c->frames];
		module = found->module;
	}

	grow_answer(c, r.nr_frames);
	for (size_t i = 0; i < r.nr_frames; i++) {
		/* frames[0] is the innermost; the answer goes outermost first. */
		const struct sym_frame *sf = &r.frames[r.nr_frames - 1 - i];
		struct frame *f = &c->out[n];
		str_id name;

		/* perf's name for the real function, where it gave one. */
		if (!i && found && found->name)
			name = show_name(c, ps, intern_c(ps, found->name));
		else if (!i && perf_named(c, old))
			name = show_name(c, ps, old->name);
		else
			name = show_name(c, ps, intern_c(ps, sf->function ? sf->function : "??"));
		/*
		 * One function, one frame: the body the debug info gives as
		 * inlined into itself under an alias (__GI__IO_default_xsputn
		 * in _IO_default_xsputn) folds into the frame around it, at
		 * the inner position.
		 */
		if (n && profile_same_function(ps_get(ps, name), intern_len(&ps->strings, name),
					       ps_get(ps, c->out[n - 1].name),
					       intern_len(&ps->strings, c->out[n - 1].name))) {
			c->file[n - 1] = intern_c(ps, sf->file);
			c->line[n - 1] = sf->line;
			continue;
		}
		memset(f, 0, sizeof(*f));
		f->name = name;
		f->module = module;
		f->flags = old->flags & ~(uint32_t)(FRAME_RETADDR | FRAME_HAS_LINE |
						    FRAME_UNNAMED);
		if (n)
			f->flags |= FRAME_INLINED;
		if (sf->decl_file) {
			f->file = intern_c(ps, sf->decl_file);
			f->line = sf->decl_line;
			f->flags |= FRAME_HAS_LINE;
		}
		c->file[n] = intern_c(ps, sf->file);
		c->line[n] = sf->line;
		n++;
	}
	rw->frames = c->out; /* grow_answer() may have moved it */
	rw->nr = n;
	/* Without line tables, no positions: they would be the call sites only. */
	if (!(c->flags & SYMBOLS_NO_LINES)) {
		rw->file = c->file;
		rw->line = c->line;
	}
	/* libdw read a chain: perf's inline frames for the address say it again. */
	rw->absorbs_inlined = r.nr_frames > 1;
}

/* One address to look up: frame of the source, in module, at addr. */
struct resolve_item {
	str_id module;
	uint32_t frame;
	/* its answer's index: frame, or past the frames for a candidate */
	uint32_t slot;
	uint64_t addr;   /* as looked up: a return address less one */
};

/* A module that may have a frame of no module: the one of a frame next to it. */
struct resolve_cand {
	uint32_t frame;
	/* 0: its callee's module, 1: its caller's, 2: another below, 3: any */
	uint32_t order;
	str_id module;
};

/*
 * Items of one module to look up, items[first .. first + nr): all of
 * them, or a share when the module has so many that workers split it.
 */
struct resolve_run {
	uint32_t first, nr;
	uint32_t module_first, module_nr; /* the module's items, for its check */
	bool named;    /* perf named some of the module's frames */
	uint64_t cost; /* symbolizer_cost_hint() */
};

/*
 * A module with many addresses is split between workers, each opening it
 * (bench/symbols.sh's program: 17,594 addresses, 10 ms of lookups, half
 * a millisecond to open): one share per RESOLVE_SPLIT addresses at most,
 * and only as many as its lookups cost more than opening it, which can
 * be the larger part (a libc with compressed debug info and a few
 * addresses).
 */
#define RESOLVE_SPLIT 4096

/*
 * The lookups, before the rewrite: modules (or shares of a big one) are
 * handed out one at a time to workers, each with a symbolizer of its own
 * (they are not thread-safe), biggest first; a worker checks the module,
 * looks up its addresses in order, then lets its libdw data go. Each
 * answer goes to its frame's slot, which no other worker writes.
 */
struct resolve_pool {
	struct symbols_job *job;
	const struct resolve_item *items;
	const struct resolve_run *runs;
	size_t nr_runs;
	_Atomic size_t next;   /* the next run to take */
	const struct rewrite_opts *o;
};

struct resolve_worker {
	struct resolve_pool *pool;
	struct symbolizer *sym;
	struct strbuf details; /* SYMBOLS_VERBOSE: the disagreeing frames */
	struct strbuf tmp;     /* for demangling */
	pthread_t thread;
};

/* Progress units of one lookup, against the rewrite's (profile.c). */
#define RESOLVE_UNITS 64
/* Lookups between two reports of progress. */
#define RESOLVE_PUBLISH 32

static int
cmp_item(const void *a, const void *b)
{
	const struct resolve_item *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static int
cmp_run(const void *a, const void *b)
{
	const struct resolve_run *x = a, *y = b;

	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * The rebuilt-module check (resolve.h) of one module: up to RESOLVE_CHECKS
 * of its frames that perf named, looked up in its symbols. Every worker
 * with a share of the module checks the same frames, and comes to the
 * same answer; the one with the first share tells which disagreed.
 */
static void
check_module(struct resolve_worker *w, const char *path, const struct resolve_item *items,
	     uint32_t nr, bool tell)
{
	const struct symbols_job *job = w->pool->job;
	const struct profile_set *ps = job->src;
	unsigned agree = 0, disagree = 0;

	for (uint32_t i = 0; i < nr && agree + disagree < RESOLVE_CHECKS; i++) {
		const struct frame *f = &ps->frames[items[i].frame];
		int r;

		/* A candidate's name is the debug info's, and it may not be here. */
		if (items[i].slot != items[i].frame || !perf_named(&job->c, f))
			continue;
		r = symbolizer_name_at(w->sym, path, items[i].addr, ps_get(ps, f->name));
		if (r > 0) {
			agree++;
		} else if (r == 0) {
			disagree++;
			if (tell && (job->c.flags & SYMBOLS_VERBOSE))
				strbuf_addf(&w->details, "%s%s: perf's %s at %#llx is not there",
					    w->details.len ? "; " : "", path, ps_get(ps, f->name),
					    (unsigned long long)items[i].addr);
		}
	}
	if (disagree >= RESOLVE_MIN_WRONG && disagree > agree)
		symbolizer_reject_module(w->sym, path);
}

/*
 * Is dwarf_name (the symbolizer's, maybe mangled) the function perf
 * printed as name? perf demangles, without parameters unless verbose.
 */
static bool
same_dwarf_name(const char *dwarf_name, const char *name, struct strbuf *tmp)
{
	size_t len;

	if (!dwarf_name)
		return false;
	len = strlen(dwarf_name);
	if (!strcmp(dwarf_name, name))
		return true;
	if (demangle_maybe_mangled(dwarf_name, len)) {
		for (unsigned flags = 0; flags <= DEMANGLE_PARAMS; flags += DEMANGLE_PARAMS) {
			strbuf_setlen(tmp, 0);
			if (demangle_name(dwarf_name, len, flags, tmp) && !strcmp(tmp->buf, name))
				return true;
		}
	}
	return profile_same_function(dwarf_name, len, name, strlen(name));
}

/*
 * Look a candidate item up: its answer stays only if the module has the
 * function perf named there, and then perf's name for it is noted.
 */
static void
resolve_candidate(struct resolve_worker *w, const char *path, const struct resolve_item *it)
{
	struct symbols_job *job = w->pool->job;
	struct sym_result *r = &job->c.answers[it->slot];
	const struct frame *f = &job->src->frames[it->frame];

	if (!symbolizer_probe(w->sym, path, it->addr, r))
		return;
	if (!same_dwarf_name(r->frames[r->nr_frames - 1].function, ps_get(job->src, f->name),
			     &w->tmp)) {
		r->nr_frames = 0;
		return;
	}
	job->cand_names[it->slot - job->src->nr_frames] =
		symbolizer_perf_name(w->sym, path, it->addr);
}

static bool
cancelled(const struct rewrite_opts *o)
{
	return o && o->cancel && atomic_load_explicit(o->cancel, memory_order_relaxed);
}

static void *
resolve_work(void *arg)
{
	struct resolve_worker *w = arg;
	struct resolve_pool *pool = w->pool;
	struct symbols_job *job = pool->job;
	const struct rewrite_opts *o = pool->o;
	uint64_t pending = 0;

	xheap_huge_pages();
	for (;;) {
		size_t r = atomic_fetch_add(&pool->next, 1);
		const struct resolve_item *items;
		const char *path;
		bool defer;

		if (r >= pool->nr_runs)
			break;
		items = pool->items + pool->runs[r].first;
		path = ps_get(job->src, items[0].module);
		/*
		 * Where perf read all the module has (symbolizer_defer_to_perf()),
		 * its names stand: no check, and no lookup of the frames it
		 * named. Those it left unnamed count as not resolved.
		 */
		defer = pool->runs[r].named && symbolizer_defer_to_perf(w->sym, path);
		if (!defer)
			check_module(w, path, pool->items + pool->runs[r].module_first,
				     pool->runs[r].module_nr,
				     pool->runs[r].first == pool->runs[r].module_first);
		for (uint32_t i = 0; i < pool->runs[r].nr; i++) {
			if (!(i % RESOLVE_PUBLISH)) {
				if (cancelled(o))
					return NULL;
				if (o && o->done && pending) {
					atomic_fetch_add_explicit(o->done, pending, memory_order_relaxed);
					pending = 0;
				}
			}
			if (items[i].slot != items[i].frame) {
				if (!defer)
					resolve_candidate(w, path, &items[i]);
			} else if (!defer || !perf_named(&job->c, &job->src->frames[items[i].frame])) {
				symbolizer_resolve(w->sym, path, items[i].addr,
						   &job->c.answers[items[i].frame]);
			}
			pending += RESOLVE_UNITS;
		}
		/* Its answers stay; its libdw data need not wait for the others. */
		symbolizer_close_module(w->sym, path);
	}
	if (o && o->done && pending)
		atomic_fetch_add_explicit(o->done, pending, memory_order_relaxed);
	return NULL;
}

static int
cmp_str_id(const void *a, const void *b)
{
	str_id x = *(const str_id *)a, y = *(const str_id *)b;

	return x < y ? -1 : x > y;
}

static bool
module_before(const void *elem, const void *key)
{
	return *(const str_id *)elem < *(const str_id *)key;
}

/*
 * The modules perf named some frame of, sorted, *nr of them: from every
 * frame, not only those with an address, as the parser keeps no address
 * for a frame perf named in a module with nothing beyond .dynsym
 * (symbols_beyond_dynsym()).
 */
static str_id *
named_modules(const struct symbols_job *job, size_t *nr)
{
	const struct profile_set *ps = job->src;
	str_id *mods = xreallocarray(NULL, ps->nr_frames ? ps->nr_frames : 1, sizeof(*mods));
	size_t n = 0, kept = 0;

	for (uint32_t f = 0; f < ps->nr_frames; f++)
		if (ps->frames[f].module != STR_EMPTY && perf_named(&job->c, &ps->frames[f]))
			mods[n++] = ps->frames[f].module;
	qsort(mods, n, sizeof(*mods), cmp_str_id);
	for (size_t i = 0; i < n; i++)
		if (!kept || mods[kept - 1] != mods[i])
			mods[kept++] = mods[i];
	*nr = kept;
	return mods;
}

static int
online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

static const struct stack_node *
node_of(const struct profile_set *ps, stack_id s)
{
	return s < ps->nr_stacks ? &ps->stacks[s] : &ps->loose[s - ps->nr_stacks];
}

/* A frame of a module the symbolizer may read. */
static bool
in_module(const struct frame *f)
{
	return f->module != STR_EMPTY &&
	       !(f->flags & (FRAME_INLINED | FRAME_KERNEL | FRAME_JIT | FRAME_PROCESS));
}

static int
cmp_cand(const void *a, const void *b)
{
	const struct resolve_cand *x = a, *y = b;

	if (x->frame != y->frame)
		return x->frame < y->frame ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return x->module < y->module ? -1 : x->module > y->module;
}

static void
add_cand(struct symbols_job *job, size_t *alloc, uint32_t frame, uint32_t order, str_id module)
{
	struct resolve_cand *c = job->cands;

	/* Stacks next to each other say the same, often. */
	if (job->nr_cands && c[job->nr_cands - 1].frame == frame &&
	    c[job->nr_cands - 1].order == order && c[job->nr_cands - 1].module == module)
		return;
	ALLOC_GROW(job->cands, job->nr_cands, *alloc);
	job->cands[job->nr_cands++] = (struct resolve_cand){ frame, order, module };
}

/*
 * A frame of no module in stacks of no module at all (an unwinding cut
 * short prints a few "(inlined)" lines and nothing else): every module
 * with an addressed frame is a candidate, up to RESOLVE_LONE_MODULES of
 * them (a system-wide profile would cost a lookup in each).
 */
#define RESOLVE_LONE_MODULES 16

static void
add_lone_cands(struct symbols_job *job, size_t *alloc)
{
	const struct profile_set *ps = job->src;
	bool *has = xcalloc(ps->nr_frames ? ps->nr_frames : 1, sizeof(*has));
	str_id mods[RESOLVE_LONE_MODULES];
	size_t nr_mods = 0, nr = job->nr_cands;

	for (size_t i = 0; i < nr; i++)
		has[job->cands[i].frame] = true;
	for (uint32_t f = 0; f < ps->nr_frames; f++) {
		const struct frame *fr = &ps->frames[f];
		size_t k;

		if (!fr->addr || !in_module(fr))
			continue;
		for (k = 0; k < nr_mods && mods[k] != fr->module; k++)
			;
		if (k < nr_mods)
			continue;
		if (nr_mods == RESOLVE_LONE_MODULES) {
			nr_mods = 0; /* too many to try them all */
			break;
		}
		mods[nr_mods++] = fr->module;
	}
	for (uint32_t f = 0; f < ps->nr_frames; f++)
		if (!has[f] && module_unknown(&ps->frames[f]))
			for (size_t k = 0; k < nr_mods; k++)
				add_cand(job, alloc, f, 3, mods[k]);
	free(has);
}

/*
 * The modules where each frame of no module (module_unknown()) may be:
 * its callee's (the first frame with a module above it, past inline
 * frames), then its caller's (the first below it, past inline frames and
 * other frames of no module, as in a recursion), and for a leaf, which
 * has no callee, those of every frame below it. A walk over the stacks,
 * each step going down a few frames at most, but for leaves.
 */
static void
find_candidates(struct symbols_job *job)
{
	const struct profile_set *ps = job->src;
	uint32_t nstk = ps->nr_stacks + ps->nr_loose;
	size_t alloc = 0, kept = 0;
	bool any = false;

	for (uint32_t f = 0; f < ps->nr_frames && !any; f++)
		any = module_unknown(&ps->frames[f]);
	if (!any)
		return;
	for (stack_id s = 1; s < nstk; s++) {
		const struct stack_node *sn = node_of(ps, s);
		const struct frame *f = &ps->frames[sn->frame];
		bool unknown = module_unknown(f);
		uint32_t order = 1;

		if (!unknown && !in_module(f))
			continue;
		for (stack_id p = sn->parent; p != STACK_ROOT; p = node_of(ps, p)->parent) {
			frame_id pid = node_of(ps, p)->frame;
			const struct frame *pf = &ps->frames[pid];

			if (pf->flags & FRAME_INLINED)
				continue;
			if (!unknown) {
				if (module_unknown(pf))
					add_cand(job, &alloc, pid, 0, f->module);
				break;
			}
			if (module_unknown(pf) || !in_module(pf))
				continue;
			add_cand(job, &alloc, sn->frame, order, pf->module);
			/*
			 * A leaf has no callee to tell: every module of its
			 * stack is a candidate.
			 */
			if (f->flags & FRAME_RETADDR)
				break;
			order = 2;
		}
	}
	add_lone_cands(job, &alloc);
	qsort(job->cands, job->nr_cands, sizeof(*job->cands), cmp_cand);
	for (size_t i = 0; i < job->nr_cands; i++)
		if (!kept || cmp_cand(&job->cands[kept - 1], &job->cands[i]))
			job->cands[kept++] = job->cands[i];
	job->nr_cands = kept;
	job->cand_names = xcalloc(kept ? kept : 1, sizeof(*job->cand_names));
}

/*
 * Each frame of no module takes the answer of its first candidate that
 * has its function.
 */
static void
choose_candidates(struct symbols_job *job)
{
	const struct profile_set *ps = job->src;
	struct resolve_ctx *c = &job->c;

	if (!job->nr_cands)
		return;
	c->found = xcalloc(ps->nr_frames ? ps->nr_frames : 1, sizeof(*c->found));
	for (size_t i = 0; i < job->nr_cands; i++) {
		const struct resolve_cand *k = &job->cands[i];
		const struct sym_result *r = &c->answers[ps->nr_frames + i];

		if (c->found[k->frame].module != STR_EMPTY || !r->nr_frames)
			continue;
		c->found[k->frame].module = k->module;
		c->found[k->frame].name = job->cand_names[i];
		c->answers[k->frame] = *r;
	}
}

/*
 * Look up every addressed frame of the source, on the job's workers.
 * Returns false if cancelled.
 */
static bool
resolve_all(struct symbols_job *job, const struct rewrite_opts *o)
{
	const struct profile_set *ps = job->src;
	struct resolve_item *items;
	struct resolve_run *runs = NULL;
	struct resolve_worker *w;
	struct resolve_pool pool;
	size_t nr = 0, nr_runs = 0, alloc_runs = 0, nr_named;
	str_id *named;
	int n;

	find_candidates(job);
	items = xreallocarray(NULL, ps->nr_frames + job->nr_cands + 1, sizeof(*items));
	for (uint32_t f = 0; f < ps->nr_frames; f++) {
		const struct frame *fr = &ps->frames[f];

		if (!fr->addr || fr->module == STR_EMPTY)
			continue;
		items[nr].module = fr->module;
		items[nr].frame = f;
		items[nr].slot = f;
		/* A return address: the call is the instruction before it. */
		items[nr].addr = fr->addr - ((fr->flags & FRAME_RETADDR) ? 1 : 0);
		nr++;
	}
	for (size_t i = 0; i < job->nr_cands; i++) {
		const struct frame *fr = &ps->frames[job->cands[i].frame];

		items[nr].module = job->cands[i].module;
		items[nr].frame = job->cands[i].frame;
		items[nr].slot = ps->nr_frames + (uint32_t)i;
		items[nr].addr = fr->addr - ((fr->flags & FRAME_RETADDR) ? 1 : 0);
		nr++;
	}
	qsort(items, nr, sizeof(*items), cmp_item);
	named = named_modules(job, &nr_named);
	n = job->threads > 0 ? job->threads : online_cpus();
	for (size_t i = 0, end; i < nr; i = end) {
		uint64_t parts = 1;
		size_t nm = bsearch_first(named, nr_named, sizeof(*named), &items[i].module,
					  module_before);

		for (end = i; end < nr && items[end].module == items[i].module; end++)
			;
		job->nr_modules++;
		if (n > 1 && end - i >= 2 * RESOLVE_SPLIT) {
			const char *path = ps_get(ps, items[i].module);
			uint64_t open = symbolizer_cost_hint(path, 0);
			uint64_t all = symbolizer_cost_hint(path, end - i);

			parts = (end - i) / RESOLVE_SPLIT;
			if (open && parts > (all - open) / open)
				parts = (all - open) / open;
			if (parts > (uint64_t)n)
				parts = (uint64_t)n;
			if (!parts)
				parts = 1;
		}
		/* parts shares, each ending where an address does. */
		for (size_t k = 1, at = i; at < end; k++) {
			size_t to = k >= parts ? end : i + (size_t)((end - i) * k / parts);

			while (to < end && (to <= at || items[to].addr == items[to - 1].addr))
				to++;
			ALLOC_GROW(runs, nr_runs, alloc_runs);
			runs[nr_runs].first = (uint32_t)at;
			runs[nr_runs].nr = (uint32_t)(to - at);
			runs[nr_runs].module_first = (uint32_t)i;
			runs[nr_runs].module_nr = (uint32_t)(end - i);
			runs[nr_runs].named = nm < nr_named && named[nm] == items[i].module;
			nr_runs++;
			at = to;
		}
	}
	/*
	 * The costliest modules first: they are the long poles. A module with
	 * compressed debug info (libc6-dbg's libc) can cost more than one with
	 * ten times its addresses.
	 */
	for (size_t i = 0; i < nr_runs; i++)
		runs[i].cost = symbolizer_cost_hint(ps_get(ps, items[runs[i].first].module),
						    runs[i].nr);
	qsort(runs, nr_runs, sizeof(*runs), cmp_run);
	job->nr_lookups = nr;

	if ((size_t)n > nr_runs)
		n = nr_runs ? (int)nr_runs : 1;
	job->c.answers = xcalloc(ps->nr_frames + job->nr_cands + 1, sizeof(*job->c.answers));
	job->c.frames = ps->frames;
	if (o && o->total)
		atomic_fetch_add(o->total, (uint64_t)nr * RESOLVE_UNITS);
	memset(&pool, 0, sizeof(pool));
	pool.job = job;
	pool.items = items;
	pool.runs = runs;
	pool.nr_runs = nr_runs;
	pool.o = o;
	w = xcalloc((size_t)n, sizeof(*w));
	job->syms = xcalloc((size_t)n, sizeof(*job->syms));
	job->nr_syms = n;
	job->nr_workers = n;
	for (int i = 0; i < n; i++) {
		w[i].pool = &pool;
		w[i].sym = job->syms[i] = symbolizer_new();
		symbolizer_set_lines(w[i].sym, !(job->c.flags & SYMBOLS_NO_LINES));
		strbuf_init(&w[i].details, 0);
		strbuf_init(&w[i].tmp, 0);
	}
	for (int i = 1; i < n; i++) {
		int rc = pthread_create(&w[i].thread, NULL, resolve_work, &w[i]);

		if (rc)
			die("cannot start a thread: %s", strerror(rc));
	}
	resolve_work(&w[0]);
	for (int i = 1; i < n; i++)
		pthread_join(w[i].thread, NULL);
	for (int i = 0; i < n; i++) {
		if (w[i].details.len)
			strbuf_addf(&job->details, "%s%s", job->details.len ? "; " : "",
				    w[i].details.buf);
		strbuf_release(&w[i].details);
		strbuf_release(&w[i].tmp);
	}
	free(w);
	choose_candidates(job);
	free(items);
	free(runs);
	free(named);
	return !cancelled(o);
}

static bool
has_addresses(const struct profile_set *ps)
{
	for (uint32_t i = 0; i < ps->nr_frames; i++)
		if (ps->frames[i].addr || (ps->frames[i].flags & FRAME_RETADDR))
			return true;
	return false;
}

static void
ctx_init(struct resolve_ctx *c, const struct profile_set *ps, unsigned flags)
{
	memset(c, 0, sizeof(*c));
	c->flags = flags;
	c->unknown = intern_find(&ps->strings, "[unknown]", 9);
	strbuf_init(&c->scratch, 0);
}

static void
ctx_release(struct resolve_ctx *c)
{
	free(c->answers);
	free(c->out);
	free(c->file);
	free(c->line);
	free(c->demangled);
	free(c->found);
	strbuf_release(&c->scratch);
	memset(c, 0, sizeof(*c));
}

/* Demangle ps in place, resolving nothing (no address to resolve). */
static void
demangle_only(struct profile_set *ps, unsigned flags)
{
	if (flags & SYMBOLS_DEMANGLE)
		profile_set_demangle(ps);
}

struct symbols_job *
symbols_job_new(struct profile_set *ps, unsigned flags, int threads)
{
	struct symbols_job *job;

	if (!has_addresses(ps)) {
		profile_set_intern_loose(ps);
		demangle_only(ps, flags);
		return NULL;
	}
	job = xcalloc(1, sizeof(*job));
	job->threads = threads;
	strbuf_init(&job->warning, 0);
	strbuf_init(&job->details, 0);
	job->src = ps;
	if (flags & SYMBOLS_SHOW_NOW) {
		/* ps without addresses, now; its addressed tables aside, for the job. */
		struct resolve_ctx strip;
		struct profile_set *shown;

		ctx_init(&strip, ps, flags);
		strip.strip = true;
		shown = profile_set_rewrite_build(ps, resolve_frame, &strip, NULL, &job->shown);
		job->nr_shown = ps->nr_stacks;
		ctx_release(&strip);
		profile_set_swap_tables(ps, shown);
		job->src = shown;
		job->owns_src = true;
	}
	ctx_init(&job->c, job->src, flags);
	job->c.job = job;
	return job;
}

/* Let the symbolizers, with every module's ELF and DWARF data, go. */
static void
free_symbolizers(struct symbols_job *job)
{
	for (int i = 0; i < job->nr_syms; i++)
		symbolizer_free(job->syms[i]);
	free(job->syms);
	job->syms = NULL;
	job->nr_syms = 0;
	free(job->c.answers); /* they pointed into the symbolizers */
	job->c.answers = NULL;
	free(job->c.found); /* so did its names */
	job->c.found = NULL;
	free(job->cand_names);
	job->cand_names = NULL;
}

/*
 * Every frame is rewritten, so the answers are in the new set's tables:
 * let the symbolizers go before the stacks are built, which is when the
 * most memory is held.
 */
static void
frames_done(void *vctx)
{
	free_symbolizers(((struct resolve_ctx *)vctx)->job);
}

/* What could not be resolved, and how much was, from every symbolizer. */
static void
summarize(struct symbols_job *job)
{
	symbolizer_summary_many((const struct symbolizer *const *)job->syms, (size_t)job->nr_syms,
				&job->warning);
	for (int i = 0; i < job->nr_syms; i++) {
		struct sym_stats st;

		/* Each (module, address) once: what the cache did not answer. */
		symbolizer_stats(job->syms[i], &st);
		job->c.resolved += (unsigned long)(st.lookups - st.cache_hits - st.unresolved -
						    st.probe_misses);
	}
	if (job->warning.len && job->details.len)
		strbuf_addf(&job->warning, "; %s", job->details.buf);
}

bool
symbols_job_run(struct symbols_job *job, const struct rewrite_opts *o)
{
	struct rewrite_opts ro = { .frames_done = frames_done };

	if (o) {
		ro = *o;
		ro.frames_done = frames_done;
	}
	double t0 = clock_ms(), t1;

	if (!resolve_all(job, o)) {
		free_symbolizers(job);
		return false;
	}
	t1 = clock_ms();
	job->lookup_ms = t1 - t0;
	job->nr_before = job->src->nr_stacks + job->src->nr_loose;
	summarize(job);
	/* The addressed tables kept aside are the job's own: rewritten in place. */
	if (job->owns_src || job->take_samples)
		job->result = profile_set_rewrite_consume(job->src, resolve_frame, &job->c, &ro,
							  &job->map);
	else
		job->result = profile_set_rewrite_build(job->src, resolve_frame, &job->c, &ro,
							&job->map);
	free_symbolizers(job); /* after a cancel, frames_done() was not called */
	job->rebuild_ms = clock_ms() - t1;
	if (job->result)
		job->nr_after = job->result->nr_stacks;
	return job->result != NULL;
}

/*
 * The stack where the chain of new stack s ends and its real function
 * starts: s's ancestor one below parent_end (the stack its parent maps to).
 */
static stack_id
chain_start(const struct profile_set *ps, stack_id s, stack_id parent_end)
{
	uint32_t depth = ps->stacks[parent_end].depth + 1;

	if (ps->stacks[s].depth < depth)
		return s; /* the frame said nothing new: absorbed into its parent */
	while (ps->stacks[s].depth > depth)
		s = ps->stacks[s].parent;
	return s;
}

unsigned long
symbols_job_apply(struct symbols_job *job, struct profile_set *ps, stack_id **map)
{
	const struct profile_set *src = job->src;

	if (!job->result)
		BUG("symbols_job_apply() before a finished symbols_job_run()");
	if (map) {
		uint32_t nint = src->nr_stacks, nstk = nint + src->nr_loose;
		uint32_t n = job->owns_src ? job->nr_shown : ps->nr_stacks + ps->nr_loose;
		stack_id *m = xcalloc(n ? n : 1, sizeof(*m)); /* STACK_ROOT: none */

		for (uint32_t s = 1; s < nstk; s++) {
			stack_id at = job->owns_src ? job->shown[s] : s;
			stack_id parent = s < nint ? src->stacks[s].parent
						   : src->loose[s - nint].parent;

			if (at < n && m[at] == STACK_ROOT)
				m[at] = chain_start(job->result, job->map[s], job->map[parent]);
		}
		*map = m;
	}
	profile_set_swap_tables(ps, job->result);
	if (job->warning.len)
		profile_set_warn(ps, 0, "%s", job->warning.buf);
	if (job->c.flags & SYMBOLS_VERBOSE)
		profile_set_warn(ps, 0,
				 "symbols: %zu address%s in %zu module%s looked up in %.0f ms "
				 "(%d thread%s), %u stacks rebuilt as %u in %.0f ms",
				 job->nr_lookups, job->nr_lookups == 1 ? "" : "es", job->nr_modules,
				 job->nr_modules == 1 ? "" : "s", job->lookup_ms, job->nr_workers,
				 job->nr_workers == 1 ? "" : "s", job->nr_before, job->nr_after,
				 job->rebuild_ms);
	return job->c.resolved;
}

void
symbols_job_free(struct symbols_job *job)
{
	if (!job)
		return;
	free_symbolizers(job);
	ctx_release(&job->c);
	if (job->owns_src)
		profile_set_free(job->src);
	profile_set_free(job->result);
	free(job->shown);
	free(job->map);
	free(job->cands);
	strbuf_release(&job->warning);
	strbuf_release(&job->details);
	free(job);
}

unsigned long
profile_set_symbolize(struct profile_set *ps, unsigned flags, int threads,
		      const struct rewrite_opts *o)
{
	struct symbols_job *job = symbols_job_new(ps, flags & ~(unsigned)SYMBOLS_SHOW_NOW,
						  threads);
	unsigned long n = 0;

	if (!job)
		return 0;
	job->take_samples = true; /* applied right after: ps's arrays go to the result */
	if (symbols_job_run(job, o))
		n = symbols_job_apply(job, ps, NULL);
	symbols_job_free(job);
	return n;
}
