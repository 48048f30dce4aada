#ifndef TFLAME_SEARCH_H
#define TFLAME_SEARCH_H

/*
 * Search: which frames a regex matches, how much weight that is, and where
 * the matches are for n/N.
 *
 * Three layers, each built from the one before:
 *
 *  - struct search_re, a compiled PCRE2 pattern (JIT when available) with
 *    smart case: case-insensitive unless the pattern has an upper-case
 *    letter of its own (escapes such as \S, \W or \p{Lu} do not count).
 *    Patterns and subjects are UTF-8; subjects that are not valid UTF-8
 *    still match where they are valid. A pattern of plain ASCII that
 *    names no code point or property runs on bytes, for speed: it finds
 *    the same names, but `.` or [^x] stands for one byte of a multi-byte
 *    character, and ignoring case folds ASCII letters only.
 *
 *  - struct search, the answer for one profile set: a bitset over frames
 *    and one over functions. The regex runs once per distinct frame name,
 *    never once per frame or per sample, and sees the name only (not the
 *    module or file); a million names are shared between CPUs. It depends
 *    on the set alone, not on the lens, so a thread filter change keeps
 *    it.
 *
 *  - struct search_index, the search applied to one call tree or flame
 *    chart: the matched weight of any x-range, counted once per sample (a
 *    sample counts when any frame of its stack matches), and the matching
 *    nodes in layout order (row, then x) for next/previous match.
 *
 * Ownership follows the usual names: search_re_new() / search_re_free()
 * for the heap object, search_init() / search_release() and the like for
 * structs embedded in something else. A struct search borrows nothing
 * after it is built; a search_index borrows the tree or chart it was built
 * over, which must outlive it. Nothing recurses on stack depth.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tflame/calltree.h"
#include "tflame/chart.h"
#include "tflame/functions.h"
#include "tflame/profile.h"

struct tf_error;

/* ------------------------------------------------------------ the regex */

struct search_re; /* opaque: PCRE2 code, match data and the pattern */

/*
 * Compile len bytes of pattern. Returns a regex owned by the caller (free
 * it with search_re_free()), or NULL with err set to pcre2's message and
 * the offset, "missing closing parenthesis at offset 3", and *err_offset
 * (when not NULL) set to that offset in bytes, for a caret under the
 * prompt. A bad pattern is an error, never a crash; the empty pattern
 * matches everything.
 */
struct search_re *search_re_new(const char *pattern, size_t len, size_t *err_offset,
				struct tf_error *err);
void search_re_free(struct search_re *re);

/*
 * Whether re matches somewhere in the len bytes at s. Not reentrant: re
 * keeps one match block, so two threads need two regexes.
 */
bool search_re_match(struct search_re *re, const char *s, size_t len);

/* The pattern as given (NUL-terminated, owned by re). */
const char *search_re_pattern(const struct search_re *re);
/* Whether smart case made re case-insensitive. */
bool search_re_caseless(const struct search_re *re);

/*
 * Smart case on its own: true (ignore case) when the len bytes of pattern
 * have no upper-case letter outside escapes (\S, \W, \x{4A}, \p{Lu},
 * \N{U+00C9}, \cA), group names ((?<Name>...), \k<Name>), option settings
 * ((?J), (?U)) and verbs ((*UTF), (*SKIP)). Text quoted with \Q...\E and
 * character classes ([A-Z]) count. Upper case is Unicode's (Lu and Lt),
 * so "É" makes a pattern case-sensitive too.
 */
bool search_smart_caseless(const char *pattern, size_t len);

/* ------------------------------------------------------- frames matched */

struct search {
	uint64_t *frame_bits;    /* bit f: frame f matches; owned */
	uint64_t *func_bits;     /* bit fn: function fn matches; owned */
	uint32_t nr_frames;      /* bits in frame_bits (= ps->nr_frames) */
	uint32_t nr_funcs;       /* bits in func_bits (= ft->nr_funcs) */
	uint32_t frames_matched; /* bits set in frame_bits */
	uint32_t funcs_matched;  /* bits set in func_bits */
	uint32_t names_tried;    /* distinct names the regex ran on */
};

/*
 * Run re over the distinct frame names of ps: a frame matches when its
 * name does, a function (ft, grouped from ps) when its name does. Release
 * with search_release().
 */
void search_init(struct search *s, struct search_re *re, const struct profile_set *ps,
		 const struct func_table *ft);
/*
 * The same bitsets for one function instead of a regex: every frame of
 * func, and func itself. This is how a pane marks every instance of the
 * function chosen in another pane, with the helpers below.
 */
void search_init_func(struct search *s, const struct profile_set *ps,
		      const struct func_table *ft, func_id func);
void search_release(struct search *s);

static inline bool
search_frame(const struct search *s, frame_id f)
{
	return f < s->nr_frames && (s->frame_bits[f >> 6] >> (f & 63) & 1);
}

static inline bool
search_func(const struct search *s, func_id fn)
{
	return fn < s->nr_funcs && (s->func_bits[fn >> 6] >> (fn & 63) & 1);
}

/*
 * Check the bitsets against ps and ft: sizes, counts, no bits past the
 * end, a function matched exactly when its frames are. Returns 0, or -1
 * with err set.
 */
int search_check(const struct search *s, const struct profile_set *ps,
		 const struct func_table *ft, struct tf_error *err);

/* ---------------------------------------------- a search over one pane */

#define SEARCH_NONE UINT32_MAX

/* A disjoint x-range whose every sample matches. */
struct search_span {
	uint64_t x0, x1;
};

/* A matching node, where layout puts it. */
struct search_hit {
	uint32_t row;   /* stack depth - 1 */
	uint32_t node;  /* stack id (tree) or box index (chart) */
	uint64_t x0, x1;
};

struct search_index {
	const struct calltree *tree; /* borrowed: what it was built over, */
	const struct chart *chart;   /* one of the two, the other NULL */
	uint64_t total;              /* weight of the whole tree or chart */
	/*
	 * The outermost matching nodes: their ranges are disjoint, and their
	 * union is exactly the x of the matched samples. By x, with prefix
	 * sums of their weights (prefix[i] = weight of spans[0 .. i)).
	 */
	struct search_span *spans;
	uint64_t *prefix;
	uint32_t nr_spans;
	/* Every node with weight whose frame matches, by row, then x. */
	struct search_hit *hits;
	uint32_t nr_hits;
};

/*
 * Index t (its nodes are stack ids of t->ps, whose frame ids must be the
 * ones s was built for: a view of the same set will do, see
 * profile_set_view_init()). One pass over the nodes, then linear in the
 * matches (sorted by x with a radix sort). Release with
 * search_index_release(); t must outlive ix.
 */
void search_index_tree(struct search_index *ix, const struct search *s,
		       const struct calltree *t);
/* Index c, whose set must be the one s was built for: O(stacks + boxes + matches). */
void search_index_chart(struct search_index *ix, const struct search *s,
			const struct chart *c);
void search_index_release(struct search_index *ix);

/*
 * The matched weight in [x0, x1), counted once per sample: O(log spans).
 * The whole pane is [0, ix->total); a zoomed node is its own range
 * (calltree_node_range(), or a chart box's [x0, x1)). In Left Heavy a
 * sample's weight is one stretch of x, so a range that cuts a node counts
 * the part of it that is inside.
 */
uint64_t search_index_matched(const struct search_index *ix, uint64_t x0, uint64_t x1);

/*
 * The next (or previous) matching node after (before) node in layout
 * order, row by row and left to right within a row, among those that
 * overlap [x0, x1) (the view; [0, UINT64_MAX) for all). Wraps around at
 * the end; node SEARCH_NONE (or a node not in the pane) starts from the
 * beginning (end). Returns a stack id or box index, or SEARCH_NONE when
 * nothing in the range matches; it is node itself when that is the only
 * match. O(rows x log hits) at worst, usually O(log hits).
 */
uint32_t search_index_next(const struct search_index *ix, uint32_t node, uint64_t x0,
			   uint64_t x1);
uint32_t search_index_prev(const struct search_index *ix, uint32_t node, uint64_t x0,
			   uint64_t x1);

/*
 * Check ix against s and the tree or chart it indexes: spans disjoint, in
 * order, each an outermost matching node, summing to the matched weight;
 * hits in order and exactly the matching nodes. O(nodes). Returns 0, or -1
 * with err set.
 */
int search_index_check(const struct search_index *ix, const struct search *s,
		       struct tf_error *err);

#endif /* TFLAME_SEARCH_H */
