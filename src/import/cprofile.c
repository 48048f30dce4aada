#include "config.h"

#include "tflame/import.h"

#include <math.h> /* isfinite(), isnan(): macros, no libm */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/hash.h"
#include "tflame/input.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * Python's cProfile output: what `python -m cProfile -o out.prof` and
 * pstats.Stats.dump_stats() write, one object in Python's marshal format:
 *
 *	{(file, line, function): (cc, nc, tt, ct, {caller key: (nc, cc, tt, ct)})}
 *
 * cc counts primitive (non-recursive) calls, nc all calls, tt is the time
 * in the function itself and ct the time including its callees, both in
 * seconds (floats). Each callers value holds the same four numbers for the
 * calls from that caller only; the old profile module wrote a bare call
 * count there instead. Built-in functions have the key ('~', 0, '<...>').
 *
 * The file holds a call graph, not stacks, so the tree tflame shows is an
 * approximation. Beside it go the file's own tottime and cumtime of every
 * function, as figures (struct func_figure) that the function tables show
 * exactly as pstats does. The tree, in nanoseconds:
 *
 *  - its roots carry the time that callers do not explain: a function's
 *    cumtime beyond the cumtime of the calls other functions made to it.
 *    A function called both from outside the profile and from inside it
 *    (builtins.exec runs the script, and importlib runs exec for every
 *    module imported) is explained only in part by its callers; and
 *    cumtime counts a recursive function's outermost calls only, while
 *    its callers' calls may be nested in one another. So when the roots
 *    fall short of the total, the rest goes to the recursive functions
 *    (fewer primitive than all calls), the costliest first, up to their
 *    unexplained cumtime: the tree then weighs the file's total time,
 *    the sum of tottime that pstats prints;
 *  - a node for function F given time W splits W between F's own time
 *    and one child per callee G, in the proportions of tottime(F) and of
 *    the cumtime of each call F -> G, by largest remainder
 *    (builder_apportion()), so every node conserves its time exactly;
 *  - a call to a function already on the path (recursion) is left out of
 *    the split: cProfile counts a recursive call's time in its outermost
 *    call already, so the remaining shares absorb it.
 *
 * Without recursion this is exact for functions with one caller, and for
 * the others it is exact on average: what it cannot know is how a callee's
 * time depended on the path its caller was reached by. The walk uses an
 * explicit stack; nodes smaller than a millionth of the total are not
 * expanded (they keep their time as the function's own), and a budget on
 * nodes bounds the tree of a graph with very many paths.
 *
 * The marshal reader below reads the subset of marshal that holds data
 * (no code objects) into a flat array of values, without recursion, and
 * checks every size against the bytes that are left.
 */

#define CPROFILE_FORMAT "cProfile"
/* Nodes below total / EXPAND_DIVISOR are not expanded. */
#define EXPAND_DIVISOR 1000000
/* At most this many nodes are expanded. */
#define MAX_NODES (4u << 20)
/* Reading the input: block size, and how often progress is published. */
#define READ_BLOCK (256 * 1024)
/* A time above this many seconds (30 years) is not a cProfile time. */
#define MAX_SECONDS 1e9

/* ------------------------------------------------------------ marshal */

/* Type codes, as in CPython's Python/marshal.c. */
enum {
	M_NULL = '0',
	M_NONE = 'N',
	M_FALSE = 'F',
	M_TRUE = 'T',
	M_STOPITER = 'S',
	M_ELLIPSIS = '.',
	M_INT = 'i',
	M_INT64 = 'I',
	M_FLOAT = 'f',
	M_BINARY_FLOAT = 'g',
	M_COMPLEX = 'x',
	M_BINARY_COMPLEX = 'y',
	M_LONG = 'l',
	M_STRING = 's',
	M_INTERNED = 't',
	M_REF = 'r',
	M_TUPLE = '(',
	M_LIST = '[',
	M_DICT = '{',
	M_CODE = 'c',
	M_UNICODE = 'u',
	M_UNKNOWN = '?',
	M_SET = '<',
	M_FROZENSET = '>',
	M_ASCII = 'a',
	M_ASCII_INTERNED = 'A',
	M_SMALL_TUPLE = ')',
	M_SHORT_ASCII = 'z',
	M_SHORT_ASCII_INTERNED = 'Z',
	M_FLAG_REF = 0x80,
};

enum mkind {
	MV_OTHER, /* None, a bool, a complex: nothing pstats needs */
	MV_INT,   /* fits int64: u.i */
	MV_FLOAT, /* a float, or an int too big for int64: u.f */
	MV_STR,   /* bytes at u.off of the input, len of them */
	MV_SEQ,   /* tuple, list or set: len values at kids[u.kids] */
	MV_DICT,  /* len / 2 pairs, key then value, at kids[u.kids] */
};

struct mval {
	uint8_t kind;
	bool done;     /* a container whose items are all read */
	uint32_t len;
	uint64_t at;   /* byte offset of the type code, for messages */
	union {
		int64_t i;
		double f;
		uint64_t off;
		uint64_t kids;
	} u;
};

/* A container being read. */
struct mframe {
	uint32_t val;
	size_t base;   /* height of the operand stack when it started */
};

struct marshal {
	const unsigned char *buf;
	size_t len, pos;

	struct mval *vals;
	uint32_t nr_vals, alloc_vals;
	uint32_t *kids;         /* the items of every container, by container */
	uint64_t nr_kids, alloc_kids;
	uint32_t *refs;         /* reference index -> value */
	uint32_t nr_refs, alloc_refs;
	uint32_t *ops;          /* values read whose container is still open */
	size_t nr_ops, alloc_ops;
	struct mframe *frames;
	size_t nr_frames, alloc_frames;
};

static void
marshal_release(struct marshal *m)
{
	free(m->vals);
	free(m->kids);
	free(m->refs);
	free(m->ops);
	free(m->frames);
}

static int
m_error(const struct marshal *m, uint64_t at, const char *what, struct tf_error *err)
{
	(void)m;
	return tf_error_set(err, "byte %llu: %s", (unsigned long long)at, what);
}

static int
m_need(const struct marshal *m, size_t n, uint64_t at, struct tf_error *err)
{
	if (m->len - m->pos < n)
		return m_error(m, at, "truncated marshal data", err);
	return 0;
}

static uint32_t
m_u32(struct marshal *m)
{
	const unsigned char *p = m->buf + m->pos;

	m->pos += 4;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t
m_u64(struct marshal *m)
{
	uint64_t lo = m_u32(m);

	return lo | (uint64_t)m_u32(m) << 32;
}

/* A new value of kind, recorded as the next reference if flagged. */
static uint32_t
m_new(struct marshal *m, enum mkind kind, uint64_t at, bool ref)
{
	struct mval *v;

	ALLOC_GROW(m->vals, m->nr_vals, m->alloc_vals);
	v = &m->vals[m->nr_vals];
	memset(v, 0, sizeof(*v));
	v->kind = (uint8_t)kind;
	v->at = at;
	v->done = true;
	if (ref) {
		ALLOC_GROW(m->refs, m->nr_refs, m->alloc_refs);
		m->refs[m->nr_refs++] = m->nr_vals;
	}
	return m->nr_vals++;
}

static void
m_push(struct marshal *m, uint32_t val)
{
	ALLOC_GROW(m->ops, m->nr_ops, m->alloc_ops);
	m->ops[m->nr_ops++] = val;
}

/*
 * A float as marshal's version 0 and 1 wrote it: its repr() as text.
 * Parsed here rather than with strtod(), whose decimal point follows the
 * locale; exact to within an ulp or two, far below a nanosecond.
 */
static bool
parse_float_text(const unsigned char *s, size_t n, double *out)
{
	long double v = 0;
	size_t i = 0;
	int exp10 = 0, e = 0;
	bool neg = false, digits = false, eneg = false;

	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits = true)
		v = v * 10 + (s[i] - '0');
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits = true, exp10--)
			v = v * 10 + (s[i] - '0');
	if (!digits)
		return false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			eneg = s[i++] == '-';
		if (i >= n)
			return false;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			if (e < 10000)
				e = e * 10 + (s[i] - '0');
	}
	if (i != n)
		return false;
	exp10 += eneg ? -e : e;
	/* Beyond these, a time is out of range anyway; no libm needed. */
	for (; exp10 > 0 && v < 1e300L; exp10--)
		v *= 10;
	for (; exp10 < 0 && v > 0; exp10++)
		v /= 10;
	*out = (double)(neg ? -v : v);
	return true;
}

/*
 * A long: a signed count of 15-bit digits, least significant first. Kept
 * as an int64 when it fits, else as a float (a count that large is not
 * going to be shown exactly anyway).
 */
static int
m_long(struct marshal *m, uint64_t at, bool ref, struct tf_error *err)
{
	int32_t n;
	uint32_t nd;
	uint64_t mag = 0;
	double f = 0, scale = 1;
	bool fits = true;
	uint32_t v;

	if (m_need(m, 4, at, err))
		return -1;
	n = (int32_t)m_u32(m);
	nd = n < 0 ? (uint32_t)-(int64_t)n : (uint32_t)n;
	if (m->len - m->pos < (uint64_t)nd * 2)
		return m_error(m, at, "truncated marshal data", err);
	for (uint32_t k = 0; k < nd; k++) {
		unsigned d = m->buf[m->pos] | (unsigned)m->buf[m->pos + 1] << 8;

		m->pos += 2;
		if (d >= 1u << 15)
			return m_error(m, at, "bad marshal data (digit out of range in long)",
				       err);
		f += d * scale;
		scale *= 32768.0;
		if (d && (k >= 5 || (k == 4 && d >= 8)))
			fits = false; /* 4 digits are 60 bits; the fifth may add 3 */
		else if (k < 5)
			mag |= (uint64_t)d << (15 * k);
	}
	if (fits && mag > INT64_MAX)
		fits = false;
	v = m_new(m, fits ? MV_INT : MV_FLOAT, at, ref);
	if (fits)
		m->vals[v].u.i = n < 0 ? -(int64_t)mag : (int64_t)mag;
	else
		m->vals[v].u.f = n < 0 ? -f : f;
	m_push(m, v);
	return 0;
}

/* Read a string of n bytes at the current position. */
static int
m_str(struct marshal *m, uint64_t n, uint64_t at, bool ref, struct tf_error *err)
{
	uint32_t v;

	if (m->len - m->pos < n)
		return m_error(m, at, "truncated marshal data", err);
	if (n > UINT32_MAX)
		return m_error(m, at, "string too long", err);
	v = m_new(m, MV_STR, at, ref);
	m->vals[v].len = (uint32_t)n;
	m->vals[v].u.off = m->pos;
	m->pos += n;
	m_push(m, v);
	return 0;
}

/* Open a container; items_min is the fewest bytes each item takes. */
static int
m_open(struct marshal *m, enum mkind kind, int64_t n, uint64_t at, bool ref,
       struct tf_error *err)
{
	uint32_t v;

	/* Every item takes at least a byte: a size beyond that is a lie. */
	if (n < 0 || (uint64_t)n > m->len - m->pos)
		return m_error(m, at, "bad marshal data (container size out of range)", err);
	v = m_new(m, kind, at, ref);
	m->vals[v].len = (uint32_t)n; /* for a dict, counted as items arrive */
	if (kind == MV_DICT || n > 0) {
		m->vals[v].done = false;
		m->vals[v].len = kind == MV_DICT ? 0 : (uint32_t)n;
		ALLOC_GROW(m->frames, m->nr_frames, m->alloc_frames);
		m->frames[m->nr_frames].val = v;
		m->frames[m->nr_frames].base = m->nr_ops;
		m->nr_frames++;
		return 0;
	}
	m_push(m, v);
	return 0;
}

/* Move the items of the innermost open container into it and close it. */
static void
m_close(struct marshal *m)
{
	struct mframe *fr = &m->frames[--m->nr_frames];
	struct mval *v = &m->vals[fr->val];
	size_t n = m->nr_ops - fr->base;

	if (n) {
		ALLOC_GROW_BY(m->kids, m->nr_kids, n, m->alloc_kids);
		memcpy(m->kids + m->nr_kids, m->ops + fr->base, n * sizeof(*m->kids));
	}
	v->u.kids = m->nr_kids;
	v->len = (uint32_t)n;
	v->done = true;
	m->nr_kids += n;
	m->nr_ops = fr->base;
	m_push(m, fr->val);
}

/* Read one scalar or open one container at the current position. */
static int
m_step(struct marshal *m, struct tf_error *err)
{
	uint64_t at = m->pos;
	unsigned code;
	bool ref;
	uint32_t v;

	if (m_need(m, 1, at, err))
		return -1;
	code = m->buf[m->pos++];
	ref = code & M_FLAG_REF;
	code &= ~(unsigned)M_FLAG_REF;
	switch (code) {
	case M_NULL: {
		/* Only the end of a dict, after a value. */
		struct mframe *fr = m->nr_frames ? &m->frames[m->nr_frames - 1] : NULL;

		if (!fr || m->vals[fr->val].kind != MV_DICT || (m->nr_ops - fr->base) % 2)
			return m_error(m, at, "bad marshal data (unexpected NULL)", err);
		m_close(m);
		return 0;
	}
	case M_NONE:
	case M_FALSE:
	case M_TRUE:
	case M_STOPITER:
	case M_ELLIPSIS:
		v = m_new(m, MV_OTHER, at, ref);
		m_push(m, v);
		return 0;
	case M_INT:
		if (m_need(m, 4, at, err))
			return -1;
		v = m_new(m, MV_INT, at, ref);
		m->vals[v].u.i = (int32_t)m_u32(m);
		m_push(m, v);
		return 0;
	case M_INT64:
		if (m_need(m, 8, at, err))
			return -1;
		v = m_new(m, MV_INT, at, ref);
		m->vals[v].u.i = (int64_t)m_u64(m);
		m_push(m, v);
		return 0;
	case M_LONG:
		return m_long(m, at, ref, err);
	case M_BINARY_FLOAT: {
		uint64_t bits;
		double f;

		if (m_need(m, 8, at, err))
			return -1;
		bits = m_u64(m);
		memcpy(&f, &bits, sizeof(f));
		v = m_new(m, MV_FLOAT, at, ref);
		m->vals[v].u.f = f;
		m_push(m, v);
		return 0;
	}
	case M_FLOAT: {
		size_t n;
		double f;

		if (m_need(m, 1, at, err))
			return -1;
		n = m->buf[m->pos++];
		if (m_need(m, n, at, err))
			return -1;
		if (!parse_float_text(m->buf + m->pos, n, &f))
			return m_error(m, at, "bad marshal data (float)", err);
		m->pos += n;
		v = m_new(m, MV_FLOAT, at, ref);
		m->vals[v].u.f = f;
		m_push(m, v);
		return 0;
	}
	case M_BINARY_COMPLEX:
		if (m_need(m, 16, at, err))
			return -1;
		m->pos += 16;
		m_push(m, m_new(m, MV_OTHER, at, ref));
		return 0;
	case M_COMPLEX:
		for (int k = 0; k < 2; k++) {
			size_t n;

			if (m_need(m, 1, at, err))
				return -1;
			n = m->buf[m->pos++];
			if (m_need(m, n, at, err))
				return -1;
			m->pos += n;
		}
		m_push(m, m_new(m, MV_OTHER, at, ref));
		return 0;
	case M_STRING:
	case M_INTERNED:
	case M_UNICODE:
	case M_ASCII:
	case M_ASCII_INTERNED:
		if (m_need(m, 4, at, err))
			return -1;
		return m_str(m, m_u32(m), at, ref, err);
	case M_SHORT_ASCII:
	case M_SHORT_ASCII_INTERNED:
		if (m_need(m, 1, at, err))
			return -1;
		return m_str(m, m->buf[m->pos++], at, ref, err);
	case M_SMALL_TUPLE:
		if (m_need(m, 1, at, err))
			return -1;
		return m_open(m, MV_SEQ, m->buf[m->pos++], at, ref, err);
	case M_TUPLE:
	case M_LIST:
	case M_SET:
	case M_FROZENSET:
		if (m_need(m, 4, at, err))
			return -1;
		return m_open(m, MV_SEQ, (int32_t)m_u32(m), at, ref, err);
	case M_DICT:
		return m_open(m, MV_DICT, 0, at, ref, err);
	case M_REF: {
		uint32_t idx;

		if (m_need(m, 4, at, err))
			return -1;
		idx = m_u32(m);
		if (idx >= m->nr_refs)
			return m_error(m, at, "bad marshal data (invalid reference)", err);
		/* pstats data never refers to a container it is inside of. */
		if (!m->vals[m->refs[idx]].done)
			return m_error(m, at, "bad marshal data (reference to an unfinished object)",
				       err);
		m_push(m, m->refs[idx]);
		return 0;
	}
	case M_CODE:
		return m_error(m, at, "unsupported marshal type 'c' (code object)", err);
	default:
		if (code >= 0x20 && code < 0x7f)
			return tf_error_set(err, "byte %llu: unknown marshal type '%c'",
					    (unsigned long long)at, (char)code);
		return tf_error_set(err, "byte %llu: unknown marshal type 0x%02x",
				    (unsigned long long)at, code);
	}
}

/* Read one whole object at the start of the buffer; *root is its value. */
static int
marshal_read(struct marshal *m, uint32_t *root, struct tf_error *err)
{
	for (;;) {
		if (m_step(m, err))
			return -1;
		/* Close every sized container that just got its last item. */
		while (m->nr_frames) {
			struct mframe *fr = &m->frames[m->nr_frames - 1];
			const struct mval *v = &m->vals[fr->val];

			if (v->kind == MV_DICT || m->nr_ops - fr->base < v->len)
				break;
			m_close(m);
		}
		if (!m->nr_frames && m->nr_ops == 1)
			break;
	}
	*root = m->ops[0];
	return 0;
}

/* ------------------------------------------------------------- pstats */

struct func {
	str_id file, name;     /* as in the key */
	int64_t line;
	frame_id frame;
	double tt, ct, nc, cc; /* seconds, seconds, calls, primitive calls */
	uint64_t tt_ns, ct_ns;
	uint32_t callers;      /* the callers dict's value index */
	uint32_t first_edge, nr_edges; /* its callees, in edges[] */
};

struct edge {
	uint32_t caller, callee;
	double ct;             /* seconds; NAN until known (old count format) */
	double calls;
	uint64_t ct_ns;
};

struct pstats {
	struct marshal m;
	struct profile_set *ps;
	struct func *funcs;
	uint32_t nr_funcs, alloc_funcs;
	uint32_t *slots;       /* hash of (file, line, name) -> func + 1 */
	uint32_t mask;
	struct edge *edges;
	uint32_t nr_edges, alloc_edges;
	uint64_t bad, first_bad;
	const char *first_why;
};

static const struct mval *
kid(const struct pstats *st, const struct mval *v, uint32_t i)
{
	return &st->m.vals[st->m.kids[v->u.kids + i]];
}

static bool
get_num(const struct mval *v, double *out)
{
	if (v->kind == MV_INT)
		*out = (double)v->u.i;
	else if (v->kind == MV_FLOAT)
		*out = v->u.f;
	else
		return false;
	return true;
}

static bool
is_time(double s)
{
	return isfinite(s) && s >= 0 && s <= MAX_SECONDS;
}

static uint64_t
to_ns(double s)
{
	/* s is checked by is_time(): at most 1e18 ns, which fits. */
	return s > 0 ? (uint64_t)(s * 1e9 + 0.5) : 0;
}

static void
bad_entry(struct pstats *st, const struct mval *v, const char *why)
{
	if (!st->bad++) {
		st->first_bad = v->at;
		st->first_why = why;
	}
}

static uint64_t
key_hash(str_id file, int64_t line, str_id name)
{
	return hash_u64(hash_u64(((uint64_t)file << 32 | name)) ^ (uint64_t)line);
}

/* The func index of a key, or UINT32_MAX; *slot is where it would go. */
static uint32_t
func_lookup(const struct pstats *st, str_id file, int64_t line, str_id name, uint32_t *slot)
{
	uint32_t i = (uint32_t)key_hash(file, line, name) & st->mask;

	for (;; i = (i + 1) & st->mask) {
		uint32_t f = st->slots[i];

		if (!f) {
			*slot = i;
			return UINT32_MAX;
		}
		f--;
		if (st->funcs[f].file == file && st->funcs[f].line == line &&
		    st->funcs[f].name == name)
			return f;
	}
}

/* Read a key (file, line, name) into its string ids; false if it is not one. */
static bool
read_key(struct pstats *st, const struct mval *k, str_id *file, int64_t *line,
	 str_id *name)
{
	const struct mval *f, *l, *n;

	if (k->kind != MV_SEQ || k->len != 3)
		return false;
	f = kid(st, k, 0);
	l = kid(st, k, 1);
	n = kid(st, k, 2);
	if (f->kind != MV_STR || n->kind != MV_STR || l->kind != MV_INT || l->u.i < 0 ||
	    l->u.i > UINT32_MAX)
		return false;
	*file = ps_str(st->ps, (const char *)st->m.buf + f->u.off, f->len);
	*name = ps_str(st->ps, (const char *)st->m.buf + n->u.off, n->len);
	*line = l->u.i;
	return true;
}

static bool
is_sep(char c)
{
	return c == '/' || c == '\\';
}

/* Whether the directory that ends at path[end] (a separator) is name. */
static bool
component_is(const char *path, size_t end, const char *name)
{
	size_t n = strlen(name);

	return end != SIZE_MAX && end >= n && !memcmp(path + end - n, name, n) &&
	       (end == n || is_sep(path[end - n - 1]));
}

/* "3" or "3.11": the version of a pythonX.Y directory. */
static bool
digits_dot_digits(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	if (!i)
		return false;
	if (i == len)
		return true;
	if (s[i++] != '.' || i == len)
		return false;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	return i == len;
}

/*
 * Where the short form of a Python source path starts: below the last
 * site-packages or dist-packages directory, else below the standard
 * library's lib/pythonX.Y (or pythonX), else at its last two parts
 * ("app/main.py"); the whole of a path of one part ("<string>", "x.py").
 */
static size_t
short_path(const char *path, size_t len)
{
	size_t start = 0, parts = 0, cut = SIZE_MAX;

	/* Each component [s, e), from the left: the last match wins. */
	for (size_t s = 0; s < len;) {
		size_t e = s;

		while (e < len && !is_sep(path[e]))
			e++;
		if (e < len) { /* a directory */
			size_t n = e - s;

			if ((n == 13 && (!memcmp(path + s, "site-packages", 13) ||
					 !memcmp(path + s, "dist-packages", 13))) ||
			    (n > 6 && !memcmp(path + s, "python", 6) &&
			     digits_dot_digits(path + s + 6, n - 6) &&
			     (component_is(path, s - 1, "lib") ||
			      component_is(path, s - 1, "lib64"))))
				cut = e + 1;
		}
		s = e + 1;
	}
	if (cut != SIZE_MAX && cut < len)
		return cut;
	/* The last two parts. */
	for (size_t i = len; i-- > 0;) {
		if (is_sep(path[i]) && ++parts == 2) {
			start = i + 1;
			break;
		}
	}
	return start;
}

/*
 * The frame of a function, named as the issue of readable names asks and
 * pstats' data gives: "dumps (json/__init__.py:183)", the function's name
 * then its file, shortened (short_path()), and line; the short file is
 * its module, so that the module column tells json's from one's own. A
 * built-in keeps pstats' name ("{built-in method builtins.exec}").
 */
static frame_id
func_frame(struct pstats *st, const struct func *fn, struct strbuf *sb)
{
	const char *file = ps_get(st->ps, fn->file), *name = ps_get(st->ps, fn->name);
	size_t nlen = intern_len(&st->ps->strings, fn->name);
	size_t flen = intern_len(&st->ps->strings, fn->file), cut;
	struct frame fr;

	memset(&fr, 0, sizeof(fr));
	strbuf_reset(sb);
	fr.module = STR_EMPTY;
	fr.file = STR_EMPTY;
	if (!strcmp(file, "~") && fn->line == 0) {
		/* pstats' func_std_string(): '<built-in method x>' is '{built-in method x}' */
		if (nlen >= 2 && name[0] == '<' && name[nlen - 1] == '>') {
			strbuf_addch(sb, '{');
			strbuf_add(sb, name + 1, nlen - 2);
			strbuf_addch(sb, '}');
		} else {
			strbuf_add(sb, name, nlen);
		}
	} else {
		cut = short_path(file, flen);
		fr.module = ps_str(st->ps, file + cut, flen - cut);
		strbuf_add(sb, name, nlen);
		strbuf_addstr(sb, " (");
		strbuf_add(sb, file + cut, flen - cut);
		strbuf_addf(sb, ":%lld)", (long long)fn->line);
		fr.file = fn->file;
		fr.line = (uint32_t)fn->line;
		fr.flags = FRAME_HAS_LINE;
	}
	fr.name = ps_str(st->ps, sb->buf, sb->len);
	return profile_set_frame(st->ps, &fr);
}

/* Read the top-level dict into st->funcs. */
static int
read_funcs(struct pstats *st, const struct mval *top, struct tf_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t pairs = top->len / 2, size = 16;

	while (size < pairs * 2u && size < (1u << 31))
		size *= 2;
	st->slots = xzalloc_table(size, sizeof(*st->slots));
	st->mask = size - 1;
	for (uint32_t i = 0; i < pairs; i++) {
		const struct mval *k = kid(st, top, 2 * i), *v = kid(st, top, 2 * i + 1);
		double cc, nc, tt, ct;
		struct func *fn;
		str_id file, name;
		int64_t line;
		uint32_t slot;

		if (!read_key(st, k, &file, &line, &name)) {
			bad_entry(st, k, "key is not (file, line, function)");
			continue;
		}
		if (v->kind != MV_SEQ || v->len < 5 || !get_num(kid(st, v, 0), &cc) ||
		    !get_num(kid(st, v, 1), &nc) || !get_num(kid(st, v, 2), &tt) ||
		    !get_num(kid(st, v, 3), &ct) || kid(st, v, 4)->kind != MV_DICT) {
			bad_entry(st, v, "value is not (cc, nc, tt, ct, callers)");
			continue;
		}
		if (!is_time(tt) || !is_time(ct) || !isfinite(nc) || nc < 0) {
			bad_entry(st, v, "time or count out of range");
			continue;
		}
		if (func_lookup(st, file, line, name, &slot) != UINT32_MAX) {
			bad_entry(st, k, "duplicate function");
			continue;
		}
		ALLOC_GROW(st->funcs, st->nr_funcs, st->alloc_funcs);
		fn = &st->funcs[st->nr_funcs];
		memset(fn, 0, sizeof(*fn));
		fn->file = file;
		fn->line = line;
		fn->name = name;
		fn->tt = tt;
		fn->ct = ct;
		fn->nc = nc;
		fn->cc = cc;
		fn->callers = st->m.kids[v->u.kids + 4];
		fn->frame = func_frame(st, fn, &sb);
		st->slots[slot] = ++st->nr_funcs;
	}
	strbuf_release(&sb);
	if (!st->nr_funcs && st->bad)
		return tf_error_set(err, "byte %llu: not a pstats entry: %s",
				    (unsigned long long)st->first_bad, st->first_why);
	return 0;
}

/*
 * Read every callers dict into edges, then sort them by caller so that
 * each function's callees are a run of edges[].
 */
static void
read_edges(struct pstats *st)
{
	double *count_sum = xcalloc(st->nr_funcs ? st->nr_funcs : 1, sizeof(*count_sum));
	uint32_t *start = xcalloc((size_t)st->nr_funcs + 1, sizeof(*start));
	struct edge *sorted;

	for (uint32_t g = 0; g < st->nr_funcs; g++) {
		const struct mval *d = &st->m.vals[st->funcs[g].callers];

		for (uint32_t i = 0; i + 1 < d->len; i += 2) {
			const struct mval *k = kid(st, d, i), *v = kid(st, d, i + 1);
			double calls = 0, ct = NAN;
			str_id file, name;
			int64_t line;
			uint32_t c, slot;
			struct edge *e;

			if (!read_key(st, k, &file, &line, &name)) {
				bad_entry(st, k, "caller key is not (file, line, function)");
				continue;
			}
			c = func_lookup(st, file, line, name, &slot);
			if (c == UINT32_MAX) {
				bad_entry(st, k, "caller is not a profiled function");
				continue;
			}
			if (v->kind == MV_SEQ && v->len >= 4 && get_num(kid(st, v, 0), &calls) &&
			    get_num(kid(st, v, 3), &ct)) {
				if (!is_time(ct) || !isfinite(calls) || calls < 0) {
					bad_entry(st, v, "caller time or count out of range");
					continue;
				}
			} else if (get_num(v, &calls) && isfinite(calls) && calls >= 0) {
				/*
				 * The old profile module's bare call count.
				 * Recursive calls bring no time from outside,
				 * so they take no share.
				 */
				if (c != g)
					count_sum[g] += calls;
			} else {
				bad_entry(st, v, "caller stats are not (nc, cc, tt, ct) or a count");
				continue;
			}
			ALLOC_GROW(st->edges, st->nr_edges, st->alloc_edges);
			e = &st->edges[st->nr_edges++];
			e->caller = c;
			e->callee = g;
			e->ct = ct;
			e->calls = calls;
		}
	}
	/* A bare count gets its share of the callee's time. */
	for (uint32_t i = 0; i < st->nr_edges; i++) {
		struct edge *e = &st->edges[i];

		if (isnan(e->ct))
			e->ct = count_sum[e->callee] > 0 && e->caller != e->callee
					? st->funcs[e->callee].ct * e->calls / count_sum[e->callee]
					: 0;
		e->ct_ns = to_ns(e->ct);
	}
	for (uint32_t f = 0; f < st->nr_funcs; f++) {
		st->funcs[f].tt_ns = to_ns(st->funcs[f].tt);
		st->funcs[f].ct_ns = to_ns(st->funcs[f].ct);
	}
	for (uint32_t i = 0; i < st->nr_edges; i++)
		start[st->edges[i].caller + 1]++;
	for (uint32_t f = 0; f < st->nr_funcs; f++) {
		start[f + 1] += start[f];
		st->funcs[f].first_edge = start[f];
		st->funcs[f].nr_edges = start[f + 1] - start[f];
	}
	sorted = xreallocarray(NULL, st->nr_edges ? st->nr_edges : 1, sizeof(*sorted));
	for (uint32_t i = 0; i < st->nr_edges; i++)
		sorted[start[st->edges[i].caller]++] = st->edges[i];
	free(st->edges);
	st->edges = sorted;
	free(start);
	free(count_sum);
}

/* -------------------------------------------------------------- the tree */

struct node {
	uint32_t func;
	uint32_t depth;
	uint64_t w;        /* ns */
	bool leaf;         /* not to be expanded */
};

struct walk {
	struct pstats *st;
	struct builder b;
	struct profile *prof;
	thread_id thread;
	struct node *stack;
	size_t nr_stack, alloc_stack;
	uint32_t *path;    /* funcs, root first */
	uint32_t path_len;
	bool *on_path;     /* per func */
	uint64_t *share;   /* the node being expanded: its own time, then per callee */
	uint64_t *part;    /* what the split gives each */
	size_t alloc_share;
	uint64_t min_expand;
	uint64_t expanded;
	bool budget_hit;
};

static int
emit(struct walk *wk, uint64_t w, struct tf_error *err)
{
	if (!w)
		return 0;
	builder_begin_sample(&wk->b, wk->prof, wk->thread, w, 0, false);
	for (uint32_t i = 0; i < wk->path_len; i++)
		builder_push_frame(&wk->b, wk->st->funcs[wk->path[i]].frame);
	return builder_end_sample(&wk->b, BUILDER_ROOT_FIRST, err);
}

static void
push_node(struct walk *wk, uint32_t func, uint32_t depth, uint64_t w, bool leaf)
{
	ALLOC_GROW(wk->stack, wk->nr_stack, wk->alloc_stack);
	wk->stack[wk->nr_stack].func = func;
	wk->stack[wk->nr_stack].depth = depth;
	wk->stack[wk->nr_stack].w = w;
	wk->stack[wk->nr_stack].leaf = leaf;
	wk->nr_stack++;
}

/* Split node n's time between its function and its callees (see the top). */
static int
expand(struct walk *wk, const struct node *n, struct tf_error *err)
{
	const struct func *fn = &wk->st->funcs[n->func];
	const struct edge *edges = wk->st->edges + fn->first_edge;
	size_t k = (size_t)fn->nr_edges + 1;
	uint64_t sum = 0;

	if (k > wk->alloc_share) {
		wk->alloc_share = k;
		wk->share = xreallocarray(wk->share, k, sizeof(*wk->share));
		wk->part = xreallocarray(wk->part, k, sizeof(*wk->part));
	}
	wk->share[0] = fn->tt_ns;
	for (uint32_t i = 0; i < fn->nr_edges; i++)
		wk->share[i + 1] = wk->on_path[edges[i].callee] ? 0 : edges[i].ct_ns;
	for (size_t i = 0; i < k; i++)
		sum += wk->share[i];
	if (!sum)
		return emit(wk, n->w, err);
	builder_apportion(n->w, wk->share, k, wk->part);
	/* Pushed in reverse, so that callees are visited in the input's order. */
	for (uint32_t i = fn->nr_edges; i-- > 0;) {
		uint64_t w = wk->part[i + 1];

		if (w)
			push_node(wk, edges[i].callee, n->depth + 1, w,
				  w < wk->min_expand || wk->expanded >= MAX_NODES);
	}
	return emit(wk, wk->part[0], err);
}

/* A root candidate: a recursive function and its cumtime. */
struct cand {
	uint64_t ct_ns;
	uint32_t func;
};

/* Costliest first, then in the input's order. */
static int
cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->ct_ns != y->ct_ns)
		return x->ct_ns > y->ct_ns ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/*
 * The roots' weights (see the top): root[f] for every function, summing
 * to the total of tottime, which is returned.
 */
static uint64_t
root_weights(const struct pstats *st, uint64_t *root)
{
	uint64_t *in = xcalloc((size_t)st->nr_funcs + 1, sizeof(*in));
	struct cand *cand = xmalloc(sizeof(*cand) * ((size_t)st->nr_funcs + 1));
	uint64_t total = 0, sum = 0;
	uint32_t nr = 0;

	for (uint32_t i = 0; i < st->nr_edges; i++)
		if (st->edges[i].caller != st->edges[i].callee)
			in[st->edges[i].callee] += st->edges[i].ct_ns;
	for (uint32_t f = 0; f < st->nr_funcs; f++) {
		const struct func *fn = &st->funcs[f];

		total += fn->tt_ns;
		root[f] = fn->ct_ns > in[f] ? fn->ct_ns - in[f] : 0;
		sum += root[f];
		if (fn->cc < fn->nc && root[f] < fn->ct_ns)
			cand[nr++] = (struct cand){ fn->ct_ns, f };
	}
	/* What callers overstate, recursive functions' outermost calls explain. */
	qsort(cand, nr, sizeof(*cand), cmp_cand);
	for (uint32_t i = 0; i < nr && sum < total; i++) {
		uint32_t f = cand[i].func;
		uint64_t more = st->funcs[f].ct_ns - root[f];

		if (more > total - sum)
			more = total - sum;
		root[f] += more;
		sum += more;
	}
	/*
	 * Left over: a few ns of rounding, or times that do not add up (a
	 * file edited by hand). The heaviest root takes the difference, or
	 * the costliest function when there is none.
	 */
	if (sum != total && st->nr_funcs) {
		uint32_t best = 0;

		for (uint32_t f = 1; f < st->nr_funcs; f++)
			if (root[f] > root[best] || (!root[best] && st->funcs[f].ct_ns >
								 st->funcs[best].ct_ns))
				best = f;
		if (sum < total)
			root[best] += total - sum;
		else
			root[best] -= sum - total < root[best] ? sum - total : root[best];
	}
	free(in);
	free(cand);
	return total;
}

static int
walk_tree(struct walk *wk, struct tf_error *err)
{
	struct pstats *st = wk->st;
	uint64_t *root = xcalloc((size_t)st->nr_funcs + 1, sizeof(*root));
	uint64_t total = root_weights(st, root);
	int ret = 0;

	for (uint32_t f = st->nr_funcs; f-- > 0;)
		if (root[f])
			push_node(wk, f, 0, root[f], false);
	free(root);
	wk->min_expand = total / EXPAND_DIVISOR;

	while (wk->nr_stack && !ret) {
		struct node n = wk->stack[--wk->nr_stack];

		while (wk->path_len > n.depth)
			wk->on_path[wk->path[--wk->path_len]] = false;
		wk->path[wk->path_len++] = n.func;
		wk->on_path[n.func] = true;
		if (n.leaf) {
			if (wk->expanded >= MAX_NODES)
				wk->budget_hit = true;
			ret = emit(wk, n.w, err);
			continue;
		}
		wk->expanded++;
		ret = expand(wk, &n, err);
	}
	return ret;
}

/* The file's own numbers: tottime and cumtime of every function. */
static void
add_figures(struct walk *wk)
{
	const struct pstats *st = wk->st;

	for (uint32_t f = 0; f < st->nr_funcs; f++) {
		const struct func *fn = &st->funcs[f];

		profile_add_figure(wk->prof, fn->frame, fn->tt_ns,
				   fn->ct_ns > fn->tt_ns ? fn->ct_ns : fn->tt_ns);
	}
}

int
cprofile_parse(const char *data, size_t len, const struct import_options *opts,
	       struct profile_set *ps, struct tf_error *err)
{
	struct pstats st;
	struct walk wk;
	uint32_t root;
	int ret = -1;

	memset(&st, 0, sizeof(st));
	memset(&wk, 0, sizeof(wk));
	st.ps = ps;
	st.m.buf = (const unsigned char *)data;
	st.m.len = len;
	if (!ps->format)
		ps->format = CPROFILE_FORMAT;
	if (marshal_read(&st.m, &root, err))
		goto out;
	if (st.m.vals[root].kind != MV_DICT) {
		tf_error_set(err, "byte 0: not a pstats file: the marshal data is not a dict");
		goto out;
	}
	if (read_funcs(&st, &st.m.vals[root], err))
		goto out;
	read_edges(&st);

	wk.st = &st;
	builder_init(&wk.b, ps);
	wk.b.max_samples = opts ? opts->max_samples : 0;
	wk.prof = profile_set_profile(ps, ps_str(ps, "time", 4), UNIT_NANOSECONDS);
	/* A tree rebuilt from the call graph's times, not samples. */
	wk.prof->no_samples = true;
	wk.thread = profile_set_thread(ps, -1, -1, STR_EMPTY);
	wk.path = xreallocarray(NULL, st.nr_funcs + 1u, sizeof(*wk.path));
	wk.on_path = xcalloc(st.nr_funcs + 1u, sizeof(*wk.on_path));
	ret = walk_tree(&wk, err);
	if (!ret)
		add_figures(&wk);
	builder_release(&wk.b);
	if (!ret && st.bad)
		profile_set_warn(ps, 0, "%llu bad pstats entr%s skipped, first at byte %llu: %s",
				 (unsigned long long)st.bad, st.bad == 1 ? "y" : "ies",
				 (unsigned long long)st.first_bad, st.first_why);
	if (!ret && wk.budget_hit)
		profile_set_warn(ps, 0, "call graph too large to expand: the tree stops after "
				 "%u nodes, deeper calls count as their caller's own time",
				 MAX_NODES);
out:
	free(wk.stack);
	free(wk.path);
	free(wk.on_path);
	free(wk.share);
	free(wk.part);
	free(st.funcs);
	free(st.slots);
	free(st.edges);
	marshal_release(&st.m);
	return ret;
}

/* ---------------------------------------------------------------- input */

static int
cprofile_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	      struct tf_error *err)
{
	struct import_progress *pr = opts ? opts->progress : NULL;
	struct strbuf sb = STRBUF_INIT;
	int ret;

	/* pstats files are small (a few MB for a big program): read it whole. */
	for (;;) {
		ssize_t n;

		strbuf_grow(&sb, READ_BLOCK);
		n = input_read(in, sb.buf + sb.len, READ_BLOCK, err);
		if (n < 0) {
			strbuf_release(&sb);
			return -1;
		}
		if (!n)
			break;
		strbuf_setlen(&sb, sb.len + (size_t)n);
		if (pr) {
			atomic_fetch_add(&pr->bytes_done, (uint64_t)n);
			if (atomic_load(&pr->cancel)) {
				strbuf_release(&sb);
				return tf_error_set(err, "cancelled");
			}
		}
	}
	ret = cprofile_parse(sb.buf, sb.len, opts, ps, err);
	strbuf_release(&sb);
	ps->format = CPROFILE_FORMAT;
	return ret;
}

static bool
is_str_code(unsigned char c)
{
	return strchr("stuaAzZ", c & 0x7f) && c & 0x7f;
}

/*
 * Certain when the data starts as pstats' dict does: a dict whose first key
 * is a 3-tuple starting with a string. An empty pstats dict has no samples
 * anyway.
 */
static int
cprofile_probe(const char *data, size_t len)
{
	const unsigned char *p = (const unsigned char *)data;
	size_t k;

	if (len < 4 || (p[0] & 0x7f) != M_DICT)
		return 0;
	if ((p[1] & 0x7f) == M_SMALL_TUPLE && p[2] == 3)
		k = 3;
	else if ((p[1] & 0x7f) == M_TUPLE && len >= 7 && !memcmp(p + 2, "\3\0\0\0", 4))
		k = 6;
	else
		return 0;
	if (k < len && is_str_code(p[k]))
		return 95;
	return 0;
}

static const char *const cprofile_names[] = { ".pstats", NULL };

const struct importer importer_cprofile = {
	.name = "cprofile",
	.description = "Python cProfile",
	.probe = cprofile_probe,
	.load = cprofile_load,
	.names = cprofile_names,
};
