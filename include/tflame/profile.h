#ifndef TFLAME_PROFILE_H
#define TFLAME_PROFILE_H

/*
 * The profile model: what importers produce and everything else reads.
 *
 * A struct profile_set is one loaded file. It owns:
 *  - the strings (struct intern), named by str_id;
 *  - frames, interned on their identity (name, module, file, line, flags,
 *    addr) and named by frame_id;
 *  - stacks, a prefix tree interned on (parent, frame): stack 0 is the empty
 *    stack STACK_ROOT, every other stack is its parent plus one frame, so a
 *    million samples of one call path cost one stack_id;
 *  - threads, interned on (pid, tid, comm): one entry per name a thread
 *    went by. The entries of one tid (a process that exec'd: sh, then
 *    python3) are linked, in order of first appearance, and make one
 *    thread, named by its first entry (struct thread's first);
 *  - one or more profiles (struct profile), e.g. one per perf event, each
 *    with its samples as parallel arrays in input order;
 *  - warnings the importer wants the user to see (struct diag).
 *
 * Every pointer into these tables (a struct frame *, a string) is borrowed:
 * valid until the next call that adds to that table, or profile_set_free().
 * Ids stay valid for the life of the set.
 *
 * Weights are exact integers. A profile whose input had decimal weights
 * keeps them scaled by 10^weight_decimals, so sums never lose precision;
 * profile_format_weight() prints them back. Nothing here recurses on stack
 * depth.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tflame/intern.h"

struct tf_error;
struct strbuf;

/*
 * A sum of weights: exact past 64 bits. A weight of one sample is 64 bits
 * (the per-sample arrays stay that size), and 2^64 samples of the largest
 * weight still fit 128 bits, so a sum of them never overflows.
 */
#ifndef __SIZEOF_INT128__
#error "tflame needs unsigned __int128 (GCC or Clang on a 64-bit target)"
#endif
typedef unsigned __int128 weight_sum;
#define WEIGHT_MAX UINT64_MAX /* the most one sample weighs */

typedef uint32_t frame_id;
typedef uint32_t stack_id;
typedef uint32_t thread_id;

#define STACK_ROOT ((stack_id)0)
#define FRAME_NONE ((frame_id)UINT32_MAX)
#define THREAD_NONE ((thread_id)UINT32_MAX)

enum frame_flags {
	FRAME_KERNEL = 1 << 0,   /* kernel code ([kernel.kallsyms], vmlinux, .ko) */
	FRAME_JIT = 1 << 1,      /* JIT code (/tmp/perf-PID.map, jitted-*.so) */
	FRAME_INLINED = 1 << 2,  /* inlined into the frame below it */
	FRAME_HAS_LINE = 1 << 3, /* line is meaningful (it may be 0) */
	/*
	 * addr is a return address (a caller's frame in a perf callchain):
	 * the call is the instruction before it. Only between an importer
	 * and the symbolizer; a symbolized set has no such frame.
	 */
	FRAME_RETADDR = 1 << 4,
	/*
	 * The input could not name the function (perf's [unknown]): the
	 * name is made from the module, "[libfoo.so.1]", as
	 * stackcollapse-perf.pl names such frames; the symbolizer may still
	 * name it. A frame of no known module stays "[unknown]".
	 */
	FRAME_UNNAMED = 1 << 5,
	/*
	 * Not a function but a process: the outermost frame of every stack
	 * of a perf profile of several processes, named after the sample's
	 * comm as stackcollapse-perf.pl names its root frames ("[pid N]"
	 * or "[unknown process]" for a thread without one), with no module
	 * and no address. It shows as a box in the trees and charts and can
	 * be searched, but it is no row of Sandwich's table nor of report's
	 * top functions.
	 */
	FRAME_PROCESS = 1 << 6,
};

struct frame {
	str_id name;    /* function name, never with a +0x offset */
	str_id module;  /* dso/module/binary as the input names it, or STR_EMPTY */
	str_id file;    /* source file, or STR_EMPTY */
	uint32_t line;  /* source line, see FRAME_HAS_LINE */
	uint32_t flags; /* enum frame_flags */
	uint64_t addr;  /* 0, unless the importer was asked to keep addresses */
};

struct stack_node {
	stack_id parent; /* STACK_ROOT for a frame called from nowhere */
	frame_id frame;  /* FRAME_NONE for STACK_ROOT only */
	uint32_t depth;  /* frames on the path: 0 for STACK_ROOT */
};

/*
 * A source position on a call path (optional, see "Source positions"
 * below): the frame at the end of stack executes file:line, and its
 * callers are at the positions up the parent chain.
 */
typedef uint32_t src_id;
#define SRC_ROOT ((src_id)0)

struct src_node {
	src_id parent;  /* the caller's position; SRC_ROOT for an outermost frame */
	stack_id stack; /* the call path whose last frame is here */
	str_id file;    /* STR_EMPTY when unknown */
	uint32_t line;  /* 0 when unknown */
};

/*
 * How a set finds stack (parent, frame): through the parent. Every stack's
 * children are listed, newest first, and walked while it has few; the
 * children of a stack with more ("busy") are in a hash table as well. Most
 * new stacks lengthen one made a moment before, which has no children yet,
 * so they are found new without probing a table of millions (a cache miss
 * each, which was most of the time spent building a big profile's trie).
 * A stack's links and frame sit together, so a step of a walk is one
 * cache line. The links run parallel to stacks (alloc_stacks entries).
 */
struct stack_link {
	stack_id first; /* the newest child, or STACK_ROOT; | STACK_BUSY when busy */
	stack_id next;  /* the parent's next older child, or STACK_ROOT */
	frame_id frame; /* the stack's frame, as in struct stack_node */
};

struct stack_children {
	struct stack_link *link;
	uint64_t *hub_slots;    /* children of busy stacks: (hash32 << 32) | (id + 1) */
	uint32_t hub_mask, nr_hub;
};

/* Children a lookup walks; a stack with more is busy. */
#define STACK_WALK 8
#define STACK_BUSY 0x80000000u /* stack ids stay below it */

/*
 * One name a thread went by. Samples point at the entry of the name their
 * thread had then, which is what stackcollapse-perf.pl keys on; everything
 * that shows threads (picker, lanes, report, --thread) shows the thread:
 * the entries of one known tid and pid, first appearance first, the
 * thread's id being its first entry's. An entry of unknown tid is a
 * thread of its own.
 */
struct thread {
	int64_t pid;  /* -1 when unknown */
	int64_t tid;  /* -1 when unknown */
	str_id comm;  /* process or thread name, STR_EMPTY when unknown */
	thread_id first; /* the thread's first entry (this one when it is first) */
	thread_id next;  /* the thread's next entry, THREAD_NONE after the last */
};

enum weight_unit {
	UNIT_NONE,        /* plain counts with no stated unit (folded stacks) */
	UNIT_SAMPLES,     /* one per sample */
	UNIT_EVENTS,      /* a hardware or software event count (cycles) */
	UNIT_NANOSECONDS, /* time */
	UNIT_BYTES,       /* memory */
	UNIT_OBJECTS,     /* allocated objects (stackprof's object mode) */
};

/* "samples", "events", "ns", ...; never NULL. */
const char *weight_unit_name(enum weight_unit unit);

/*
 * One function's figures as the tool that wrote the file recorded them,
 * in the profile's weight unit: cProfile's tottime and cumtime,
 * callgrind's self and inclusive cost. Formats that record a call graph
 * rather than stacks (see the importers) give these beside the samples,
 * because the samples are a tree rebuilt from the graph, an
 * approximation, while these numbers are the file's own. The function
 * tables read them (functions.h: func_stats_figures()) whenever the lens
 * keeps every sample; figures of several frames of one function add up.
 */
struct func_figure {
	frame_id frame;  /* a frame of the function */
	uint64_t self;   /* exclusive weight */
	uint64_t total;  /* inclusive weight, recursion counted once as the
			  * tool counts it */
};

struct profile {
	str_id name;           /* event or profile name, e.g. "cycles" */
	enum weight_unit unit;
	unsigned weight_decimals; /* weights are scaled by 10^weight_decimals */

	size_t nr_samples, alloc_samples;
	stack_id *stack;       /* per sample: the full stack, leaf included */
	uint64_t *weight;      /* per sample */
	int64_t *time;         /* per sample, ns; meaningful if has_time */
	thread_id *thread;     /* per sample */
	src_id *src;           /* per sample: its position, or SRC_ROOT when
				* unknown; NULL when the set has none */

	/*
	 * The sum of weight[], exact. Past 64 bits (import_file() warns)
	 * the views read a scaled copy (weight_shift), while collapse,
	 * folded export and report's total read this.
	 */
	weight_sum total_weight;
	/*
	 * 0 in every profile of a set. The views' copy of a profile whose
	 * total is past 64 bits (model_profile()) has each weight divided
	 * by 2^weight_shift and rounded (profile_wide_shift()), so that
	 * their 64-bit sums hold; the profile_format_*() functions multiply
	 * back and print what those sums know (profile_format_amount()).
	 */
	unsigned weight_shift;
	bool has_time;         /* some sample carried a time */
	/*
	 * Each timed sample lasts its weight (ns) from its time: the input
	 * said when intervals began and ended (trace events, speedscope's
	 * evented profiles), so time_max is where the last one ended and a
	 * chart box ends where its last sample does. Otherwise a sample is
	 * an instant (perf's), and time_max is the last sample's time. Set
	 * by the importer before adding samples, only for unit
	 * UNIT_NANOSECONDS with weight_decimals 0.
	 */
	bool spans;
	int64_t time_min, time_max; /* over samples with a time (and their ends) */
	/*
	 * The file recorded no samples: the importer made these of what it
	 * did record, a tree rebuilt from a call graph's figures (cProfile,
	 * callgrind), one per node of a call tree (heap profiles, GHC,
	 * Instruments) or one per distinct stack (pprof). Counting them
	 * counts nothing the tool measured, so the explorer does not offer
	 * it (model_set_count_samples()). Set by the importer.
	 */
	bool no_samples;

	/*
	 * The recorded per-function figures (struct func_figure), or NULL
	 * when the format records none; owned. They describe all of the
	 * profile's samples: anything that adds samples they do not
	 * describe (profile_set_merge()) drops them.
	 */
	struct func_figure *figures;
	uint32_t nr_figures, alloc_figures;
};

struct diag {
	uint64_t line; /* line in the input, 0 if none */
	char *msg;     /* owned */
};

struct profile_set {
	struct intern strings;

	struct frame *frames;
	uint32_t nr_frames, alloc_frames;
	uint64_t *frame_slots;   /* (hash32 << 32) | (id + 1) */
	uint32_t frame_mask;

	struct stack_node *stacks;
	uint32_t nr_stacks, alloc_stacks;
	struct stack_children kids;
	/*
	 * Not 0: the stacks from this id on are not in kids yet
	 * (profile_set_defer_links()).
	 */
	stack_id unlinked_from;
	/*
	 * Loose stacks (profile_set_merge_loose()): stacks of another set
	 * appended without being interned, loose[i] being stack nr_stacks + i
	 * (its parent and frame ids are this set's). Between that merge and
	 * the rewrite that interns them (profile_set_rewrite_build() reads
	 * them like any other stack) samples may name them, but no stack may
	 * be looked up or added. nr_loose is 0 in any other set.
	 */
	struct stack_node *loose;
	uint32_t nr_loose, alloc_loose;

	/*
	 * Source positions: a prefix tree like the stacks, interned on
	 * (parent, stack, file, line), with src 0 = SRC_ROOT standing for
	 * "no position". Empty (nr_srcs 1) unless an importer or the
	 * symbolizer knew where each frame of a sample was executing, which
	 * a stack cannot say: the stacks name functions, so two samples in
	 * different lines of one function share a stack but not a position.
	 * The source pane and `report --lines` read it.
	 */
	struct src_node *srcs;
	uint32_t nr_srcs, alloc_srcs;
	uint64_t *src_slots;
	uint32_t src_mask;

	struct thread *threads;
	uint32_t nr_threads, alloc_threads;
	uint64_t *thread_slots;
	uint32_t thread_mask;

	struct profile **profiles; /* in order of first appearance */
	size_t nr_profiles, alloc_profiles;

	struct diag *diags;
	size_t nr_diags, alloc_diags;

	const char *format;     /* importer's format name; static string */
	/*
	 * Read from perf script's text (the perf importer sets it, with
	 * format): stacks as stackcollapse-perf.pl reads them, which
	 * collapse.h follows. It goes wherever format goes.
	 */
	bool perf_script;
	/*
	 * A comparison's set (diff.h: diff_join()): the enum diff_flags its
	 * functions were matched with (by name alone, and whether that was
	 * chosen rather than asked), for the views to say; 0 otherwise.
	 */
	unsigned diff_flags;
};

struct profile_set *profile_set_new(void);
void profile_set_free(struct profile_set *ps);

/* Intern a string in the set's table. */
static inline str_id
ps_str(struct profile_set *ps, const char *s, size_t len)
{
	return intern_str(&ps->strings, s, len);
}

static inline const char *
ps_get(const struct profile_set *ps, str_id id)
{
	return intern_get(&ps->strings, id);
}

/* The id of the frame equal to *f, adding a copy if new. */
frame_id profile_set_frame(struct profile_set *ps, const struct frame *f);

/*
 * Do names a and b (alen and blen bytes, not NUL-terminated) name one
 * function? True when they are equal once each loses what tells aliases
 * of one function apart: a symbol version ("@@GLIBC_2.34", "@plt"), a
 * GCC clone suffix (".part.0", ".isra.0", ".constprop.0", ".cold", or a
 * demangled " [clone .part.0]"), glibc's alias prefixes "__GI_" and
 * "__libc_", then leading underscores: `_IO_default_xsputn` and
 * `__GI__IO_default_xsputn`, `msort_with_tmp` and
 * `msort_with_tmp.part.0`. A name that is nothing but those is only the
 * same as itself. For folding an inline frame into the frame around it,
 * when the debug info names a function's own body after an alias.
 */
bool profile_same_function(const char *a, size_t alen, const char *b, size_t blen);

/*
 * A 64-bit key of name (len bytes) for profile_same_function(): two
 * names have the same key when it holds (and otherwise only by a hash
 * collision), so a caller can compute it once per name. Never 0.
 */
uint64_t profile_function_key(const char *name, size_t len);
/* The id of the stack parent + frame, adding it if new. */
stack_id profile_set_stack(struct profile_set *ps, stack_id parent, frame_id frame);
/*
 * Add stack parent + frame, which the caller knows is not one of ps's
 * yet, as parent's kids-th child (this one counted; any count above
 * STACK_WALK is STACK_WALK + 1): profile_set_stack() without its lookup,
 * for a pass that makes stacks it can tell are new (the lens's). A count
 * that is not parent's makes its later lookups slow, or wrong.
 */
stack_id profile_set_new_stack(struct profile_set *ps, stack_id parent, frame_id frame,
			       uint32_t kids);
/* The id of the stack parent + frame, or STACK_NONE when ps has none: nothing is added. */
#define STACK_NONE ((stack_id)UINT32_MAX)
stack_id profile_set_find_stack(const struct profile_set *ps, stack_id parent, frame_id frame);
/*
 * The id of the position (parent, stack, file, line), adding it if new.
 * stack's parent must be srcs[parent].stack (STACK_ROOT for SRC_ROOT).
 */
src_id profile_set_src(struct profile_set *ps, src_id parent, stack_id stack,
		       str_id file, uint32_t line);
/*
 * The id of the thread entry (pid, tid, comm), adding it if new: when tid
 * is known (>= 0), a new entry joins the entries of the same pid and tid
 * as their thread's latest name.
 */
thread_id profile_set_thread(struct profile_set *ps, int64_t pid, int64_t tid,
			     str_id comm);

/* The thread of entry t: its first entry, which names it in thread masks and tables. */
static inline thread_id
ps_thread(const struct profile_set *ps, thread_id t)
{
	return ps->threads[t].first;
}

/*
 * The name thread t (any of its entries) went by last: the comm of its
 * latest entry that has one, STR_EMPTY when none has.
 */
str_id profile_thread_comm(const struct profile_set *ps, thread_id t);

/*
 * Append thread t's names to out, in order of first appearance, joined
 * by sep ("sh→python3" with sep "→"), leaving out empty ones (an entry
 * is a name: none comes twice). The names are the input's bytes: escape
 * them before they reach a screen. Nothing is added when no entry has a
 * name.
 */
void profile_thread_names(const struct profile_set *ps, thread_id t, const char *sep,
			  struct strbuf *out);
/*
 * The profile called name, created (with the given unit) if there is none
 * yet. The pointer stays valid until profile_set_free().
 */
struct profile *profile_set_profile(struct profile_set *ps, str_id name,
				    enum weight_unit unit);
/* The profile called name, or NULL. */
struct profile *profile_set_find_profile(const struct profile_set *ps,
					 const char *name);
/*
 * Whether name names profile p as --event takes it: its whole name, or a
 * part of it between colons, such as "sched_switch" of "sched:sched_switch"
 * (the tracepoint less its subsystem) or "cycles" of "cycles:u" (the
 * event less its modifiers).
 */
bool profile_event_named(const struct profile_set *ps, const struct profile *p, const char *name);
/*
 * The profile --event=name means: the one called name, else the only one
 * profile_event_named() matches. Returns how many it matches (1 when the whole
 * name does): with any count but 1, *out is NULL.
 */
size_t profile_set_find_event(const struct profile_set *ps, const char *name,
			      struct profile **out);
/*
 * Make p, one of ps's profiles, the first (the one shown unless the user
 * picks another); the others keep their order.
 */
void profile_set_put_first(struct profile_set *ps, struct profile *p);
/* Index of p in ps->profiles, or -1. */
int profile_set_profile_index(const struct profile_set *ps,
				  const struct profile *p);

/* Record a warning for the user (printf-style message, no final newline). */
void profile_set_warn(struct profile_set *ps, uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline const struct frame *
ps_frame(const struct profile_set *ps, frame_id id)
{
	return &ps->frames[id];
}

static inline const struct stack_node *
ps_stack(const struct profile_set *ps, stack_id id)
{
	return &ps->stacks[id];
}

/*
 * The stack tree as the lookup's own links, for walking it depth first
 * without recursion: s's newest child, and the next older child of s's
 * parent; STACK_ROOT when there is none. Siblings come newest first.
 * The stacks of a set whose links are deferred (unlinked_from) are in
 * no list yet.
 */
static inline stack_id
ps_first_child(const struct profile_set *ps, stack_id s)
{
	return ps->kids.link[s].first & ~STACK_BUSY;
}

static inline stack_id
ps_next_sibling(const struct profile_set *ps, stack_id s)
{
	return ps->kids.link[s].next;
}

/*
 * Whether the call path of stack s, root first, reads path: the frame
 * names joined by ';', "main;run;parse" (a name holding ';' matches
 * itself). STACK_ROOT reads "". O(depth), no recursion.
 */
bool profile_stack_is_path(const struct profile_set *ps, stack_id s, const char *path);

/*
 * Make room for n samples in all (no fewer than p holds), so that a loader
 * that can tell about how many are coming grows the arrays once rather
 * than by doubling. Room left unused costs address space only: from a
 * megabyte on, the arrays are in huge pages that are touched as they fill.
 */
void profile_reserve_samples(struct profile *p, size_t n);

/*
 * Give p a source position per sample (p->src), for an importer that
 * knows where its samples executed: the samples p holds are at SRC_ROOT,
 * and so is every sample added after until the importer sets its
 * position (profile_set_src()). Nothing when p has positions already.
 */
void profile_keep_positions(struct profile *p);

/*
 * Append one sample. Returns 0: the total is summed in 128 bits, which no
 * number of samples can overflow (err is not touched; it is there for the
 * callers that check).
 */
int profile_add_sample(struct profile *p, stack_id stack, uint64_t weight,
		       int64_t time, bool has_time, thread_id thread,
		       struct tf_error *err);

/* Where a sample of a profile with spans ends: time + weight, saturated. */
static inline int64_t
profile_span_end(int64_t time, uint64_t weight)
{
	if (weight > (uint64_t)INT64_MAX || time > INT64_MAX - (int64_t)weight)
		return INT64_MAX;
	return time + (int64_t)weight;
}

/*
 * Record the figures of one function of p (see struct func_figure).
 * Importers call it once per function; frame is any frame of it.
 */
void profile_add_figure(struct profile *p, frame_id frame, uint64_t self, uint64_t total);
/* Forget p's figures: the function tables then count p's samples. */
void profile_drop_figures(struct profile *p);

/*
 * Multiply every weight of p by 10^(decimals - p->weight_decimals), so that
 * weights with up to that many decimals can be added exactly. Returns 0, or
 * -1 with err set when a sample's weight would pass 64 bits or the total
 * 128 (p is then unchanged).
 */
int profile_set_decimals(struct profile *p, unsigned decimals, struct tf_error *err);

/*
 * For the views of a profile whose total is past 64 bits: the smallest k
 * such that its weights, each divided by 2^k and rounded to nearest
 * (profile_shift_weight()), add up below 2^63. 0 when the total fits 64
 * bits: the views then read the weights as they are. O(samples) per k
 * tried, usually one or two.
 */
unsigned profile_wide_shift(const struct profile *p);

/*
 * w divided by 2^shift, rounded to nearest (halves up), but 1 rather than
 * 0 for a w that is not 0, so that no sample goes (Time Order would show
 * a gap, the tables lose a function); w itself for shift 0. Off by less
 * than 2^shift.
 */
static inline uint64_t
profile_shift_weight(uint64_t w, unsigned shift)
{
	uint64_t v;

	if (!shift)
		return w;
	v = (uint64_t)(((weight_sum)w + ((weight_sum)1 << (shift - 1))) >> shift);
	return v || !w ? v : 1;
}

/*
 * A sum of p's weights (p->weight_shift > 0: of its scaled ones) in the
 * input's units, as far as it is known: each sample's scaled weight is off
 * by less than 2^shift, so a sum of p's samples is within nr_samples *
 * 2^shift of the exact one, and it is rounded to the smallest power of
 * ten, *unit, that is at least twice that, which leaves it within one
 * *unit of the exact sum. Returns the rounded value (a multiple of *unit),
 * *unit 1 and w itself for shift 0.
 */
weight_sum profile_unscale(const struct profile *p, weight_sum w, weight_sum *unit);

/*
 * Append w (a weight of p, scaled) as exact decimal text, e.g. "12.5".
 * For a views' copy (weight_shift) the digits profile_unscale() knows,
 * the rest zeros.
 */
void profile_format_weight(const struct profile *p, uint64_t w, struct strbuf *out);
/* The same for a sum, exact past 64 bits: "36893488147419103230". */
void profile_format_weight_sum(const struct profile *p, weight_sum w, struct strbuf *out);
/* Append v in decimal, exactly. */
void weight_sum_format(weight_sum v, struct strbuf *out);
/*
 * Amounts for people, one way everywhere (TUI, report, dump). A time has
 * three significant digits and a unit: "989 us", "1.51 s", "0 s" (units
 * ns, us, ms, s; ASCII so that any terminal shows them). Other amounts:
 *
 * profile_format_amount() has room, so counts and bytes are exact with
 * thousands separators ("67,198,400,121"), decimals as
 * profile_format_weight() writes them ("1,234.5").
 *
 * profile_format_amount_short() is for columns: three significant digits
 * with an SI prefix ("62.1 G", "999", "1.00 k"), bytes in KiB, MiB, GiB.
 *
 * Zero is "0" (a time "0 s").
 *
 * For a views' copy of a wide profile (weight_shift) the amount is
 * profile_unscale()'s, rounded: the exact form starts with "~" and ends
 * in the zeros of its unit ("~36,893,488,147,419,103,200"); the short
 * form is the usual one where it has three known digits, else the exact
 * form ("~1,200", "~0" for what rounds to nothing).
 */
void profile_format_amount(const struct profile *p, uint64_t w, struct strbuf *out);
/* profile_format_amount() of a sum, exact past 64 bits (counts and bytes). */
void profile_format_amount_sum(const struct profile *p, weight_sum w, struct strbuf *out);
void profile_format_amount_short(const struct profile *p, uint64_t w, struct strbuf *out);

/*
 * Append part's share of whole: "42.5%"; "100%" only when part is whole,
 * "0%" only when part is 0, "<0.1%" for a sliver. Returns false and
 * appends nothing when whole is 0: there is no share to state.
 */
bool profile_format_share(uint64_t part, uint64_t whole, struct strbuf *out);

/*
 * Move everything in src into dst: strings, frames, stacks and threads are
 * interned again in dst, profiles are matched by name (new ones appended in
 * src's order), src's samples are appended after dst's, and src's warnings
 * are appended with line_offset added to their line numbers. Recorded
 * figures survive when both sides of a profile have them (they add up)
 * or only one side has samples; else they are dropped. src is left
 * empty but valid (free it with profile_set_free()). Returns 0, or -1 with
 * err set if a total weight would overflow.
 */
int profile_set_merge(struct profile_set *dst, struct profile_set *src,
		      uint64_t line_offset, struct tf_error *err);

/*
 * profile_set_merge() for a set about to be rewritten, which interns every
 * stack again: src's stacks are not interned in dst but appended to its
 * loose stacks (struct profile_set), which costs no lookup and, for the
 * first src, no copy (dst takes src's table). The rewrite of dst then
 * makes the same stacks, with the same ids, as that of a dst merged with
 * profile_set_merge(). When either set has source positions, which name
 * stacks, it is profile_set_merge() after profile_set_intern_loose().
 */
int profile_set_merge_loose(struct profile_set *dst, struct profile_set *src,
			    uint64_t line_offset, struct tf_error *err);

/*
 * Intern the loose stacks of ps, if any: ps then has the stacks, ids and
 * samples' stacks that merging its parts with profile_set_merge() would
 * have given it.
 */
void profile_set_intern_loose(struct profile_set *ps);

/*
 * Check every invariant of the set: ids in range, stacks interned once with
 * parents before children and depth = parent depth + 1, hash tables that
 * find every entry, per-profile arrays and totals consistent. Returns 0, or
 * -1 with err describing the first violation.
 */
int profile_set_check(const struct profile_set *ps, struct tf_error *err);

/*
 * A stack view of base: a set that borrows base's strings, frames and
 * threads (shallow copies of those tables, so frame ids and str_ids mean
 * the same in both) and owns a stack trie of its own, empty but for
 * STACK_ROOT, to be filled with profile_set_stack(). It has no profiles.
 *
 * This is how derived trees (Sandwich's callers and callees) get stack ids
 * of their own that the call tree, layout and details code read like any
 * other set. Nothing may add strings, frames or threads to either set while
 * the view lives, and base must outlive it. Release the view with
 * profile_set_view_release(), never profile_set_free().
 */
void profile_set_view_init(struct profile_set *view, const struct profile_set *base);
/*
 * The view takes base's strings and frames again, after base added some
 * (which may have moved its tables): every view of a set that grows.
 */
void profile_set_view_sync(struct profile_set *view, const struct profile_set *base);
/* Free the view's own stack trie; the borrowed tables are left alone. */
void profile_set_view_release(struct profile_set *view);
/*
 * Make room for n more stacks in ps (or a view), so that adding them grows
 * neither the stack table nor its lookup table: for callers that know how
 * much they are about to add, as rehashing a big table costs more than
 * filling it.
 */
void profile_set_reserve_stacks(struct profile_set *ps, uint32_t n);
/*
 * Stacks in bulk, for a caller that knows the stacks it makes are new,
 * so that nothing is looked up: profile_set_add_stacks() adds n stacks
 * (ids from the one it returns) for the caller to fill in each one's
 * parent and frame in ps->stacks, every parent before its children and
 * no two stacks alike, nor alike one ps had; profile_set_link_stacks()
 * then makes the stacks from first on findable and sets their depths.
 * Between the two calls the set is for the caller only.
 *
 * profile_set_defer_links() sets only the depths, for a set that is
 * walked but seldom added to (the group by process: its lists and table
 * would be a tenth of its build and a quarter of its fresh memory): the
 * stacks from first on are linked by the next profile_set_stack() on
 * ps, and profile_set_find_stack() must not be asked before (a BUG).
 */
stack_id profile_set_add_stacks(struct profile_set *ps, uint32_t n);
void profile_set_link_stacks(struct profile_set *ps, stack_id first);
void profile_set_defer_links(struct profile_set *ps, stack_id first);

/*
 * Empty the stack trie of ps back to STACK_ROOT, keeping its memory, for
 * an importer that builds its stacks again (builder_add_roots()): every
 * other stack id then means nothing, and the caller gives every sample a
 * new one. ps must hold no source positions, which name stacks.
 */
void profile_set_clear_stacks(struct profile_set *ps);

/*
 * Exchange the stack tries of ps and view, a view of ps (the same
 * frames): every sample's stack id then names a stack of the other trie,
 * and the caller gives each sample its new one. ps's source positions,
 * which name stacks, are dropped (and its samples' positions).
 */
void profile_set_swap_stacks(struct profile_set *ps, struct profile_set *view);

/*
 * What one frame becomes in profile_set_rewrite(): nr >= 1 frames,
 * outermost first (an inlined chain is the real function, then what was
 * inlined into it, down to the innermost), and optionally where each one
 * executes (file[i]:line[i]; both NULL when unknown).
 */
struct frame_rewrite {
	const struct frame *frames;
	const str_id *file;
	const uint32_t *line;
	size_t nr;
	/*
	 * The answer holds the frame's inline chain: frames flagged
	 * FRAME_INLINED right above it in a stack (an importer's own inline
	 * frames, such as perf's "(inlined)" lines) say it again and are
	 * dropped.
	 */
	bool absorbs_inlined;
};

/*
 * Called once per frame of the set by profile_set_rewrite() with a copy of
 * the old frame; fills *out, whose arrays must stay valid until the next
 * call. It may intern strings (ps_str()) but not frames or stacks.
 */
typedef void frame_rewrite_fn(void *ctx, struct profile_set *ps, const struct frame *old,
			      struct frame_rewrite *out);

/*
 * Replace every frame of ps by what fn makes of it, and rebuild the
 * frames, the stacks and every sample's stack on the new frames: frames
 * that become equal are merged, a frame that becomes several lengthens
 * every stack through it. When fn gives positions for some frame, the set
 * gets source positions (see struct profile_set): frames without one
 * there take their own file:line when FRAME_HAS_LINE, or none. When fn
 * gives no positions, the set's positions are kept if every frame became
 * exactly one frame (a renaming, such as demangling), and dropped
 * otherwise. Samples, threads, profiles and warnings stay as they are;
 * str_ids keep their meaning. O(frames + stacks + samples); no recursion.
 *
 * It is profile_set_rewrite_build() then profile_set_swap_tables(), which
 * a caller can also run apart: the build, the slow part, only reads ps,
 * so it can run on another thread while ps is in use.
 */
void profile_set_rewrite(struct profile_set *ps, frame_rewrite_fn *fn, void *ctx);

/* Progress and cancelling of a rewrite build; every member may be NULL. */
struct rewrite_opts {
	_Atomic uint64_t *done;     /* advanced as the work is done ... */
	_Atomic uint64_t *total;    /* ... up to this, raised by the build's work
				     * when it starts (the caller may have added
				     * work of its own before) */
	const _Atomic int *cancel;  /* once set, the build stops and returns NULL */
	/*
	 * Called with fn's ctx after fn's last call: what only fn needed
	 * (open modules, say) can go before the stacks are built.
	 */
	void (*frames_done)(void *ctx);
};

/*
 * The slow half of profile_set_rewrite(): build the rewritten tables of ps
 * in a new set, reading ps only (fn is called with the new set, whose
 * strings are a copy of ps's: every str_id of ps means the same there, so
 * fn can read old->name with ps_get() and add names with ps_str()).
 *
 * The result is a shadow of ps, good only for profile_set_swap_tables()
 * or for being the source of another build: it holds strings, frames,
 * stacks, positions and threads, and one profile per profile of ps whose
 * samples have their new stack (and position) ids but no weights, times
 * or threads. Free it with profile_set_free().
 *
 * With map_out, *map_out is a new array (free() it): for every stack of
 * ps (its loose stacks too), the new stack that its samples now have. Returns NULL when
 * o->cancel was set before the end. A big build (8 MiB of new stack
 * tables or more) runs a helper thread of its own while it builds the
 * stacks, to have their pages mapped in ahead; it is gone on return.
 */
struct profile_set *profile_set_rewrite_build(const struct profile_set *ps,
					      frame_rewrite_fn *fn, void *ctx,
					      const struct rewrite_opts *o, stack_id **map_out);

/*
 * As profile_set_rewrite_build(), from a shadow (the result of a build,
 * or what a swap left in it) that the caller gives up: its samples' stack
 * and position arrays are rewritten in place and move to the result,
 * which saves their memory on a big profile. Free the shadow afterwards
 * (also after a cancel): nothing but that is left to do with it.
 */
struct profile_set *profile_set_rewrite_consume(struct profile_set *shadow,
						frame_rewrite_fn *fn, void *ctx,
						const struct rewrite_opts *o,
						stack_id **map_out);

/*
 * Exchange the tables (strings, frames, stacks, positions, threads) and
 * the samples' stack and position ids of a and b, which must hold the
 * same profiles with the same numbers of samples (a set and a shadow
 * built from it, or from a shadow of it). O(profiles).
 */
void profile_set_swap_tables(struct profile_set *a, struct profile_set *b);

/* Approximate bytes of memory held by the set. */
size_t profile_set_memory(const struct profile_set *ps);

#endif /* TFLAME_PROFILE_H */
