#include "config.h"

#include "tflame/import.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/hash.h"
#include "tflame/input.h"
#include "tflame/lines.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/symbols.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

/*
 * The perf script importer.
 *
 * A sample is a header line, its frame lines (leaf first, each optionally
 * followed by a srcline line) and a blank line. Every decision about a line
 * is taken from that line alone plus one bit of state (whether the previous
 * line was a frame that a srcline may still annotate); this is what lets a
 * large file be cut at any header or blank line and parsed on several
 * threads with exactly the result of one pass.
 *
 * Speed comes from never interning on the hot path: a frame line is looked
 * up in a per-parser cache keyed by its raw symbol (without the +0x offset)
 * and module bytes, so a hit costs one hash and one memcmp.
 *
 * Process roots: a system-wide profile reads by process, so when a file
 * holds samples of more than one process, every sample gets an outermost
 * frame naming its process (FRAME_PROCESS), as stackcollapse-perf.pl
 * makes the comm the root of every stack; a profile of one process gets
 * none. That is decided over the whole set, every event together, without
 * a second pass and at no cost to a profile of one process: a parser adds
 * no process frame until a sample of a second process ends (process_seen(),
 * which then gives the samples before theirs), and a parallel load looks
 * at what its ranges saw before merging them (several_processes()).
 */

/* Input bytes the samples and stacks must have room for, at a progress step. */
#define RESERVE_AHEAD (4.0 * PROGRESS_STEP)
/* Files at least this big are parsed on several threads. */
#define PARALLEL_MIN_BYTES ((uint64_t)16 << 20)
/* No thread gets a range smaller than this. */
#define RANGE_MIN_BYTES ((uint64_t)4 << 20)
/*
 * A parallel load cuts the file in up to this many ranges per thread, of
 * at least RANGE_BYTES each: more ranges keep every thread busy to the end
 * and merge more of the ranges while others are parsed, but each one
 * starts with cold caches and a set of its own to merge, which a 100 MB
 * file cut in 8 MiB ranges paid for (report --no-symbols took 180 ms, not
 * 150).
 */
#define RANGES_PER_THREAD 16
#define RANGE_BYTES ((uint64_t)32 << 20)
#define MAX_THREADS 64
/* Report progress and look for cancellation this often. */
#define PROGRESS_STEP ((uint64_t)1 << 20)
/* Bytes of a line quoted in the "not understood" warning. */
#define EXCERPT_BYTES 80
/*
 * How many comm candidates a header may try before settling for the
 * shortest one: bounds the work on a long line full of numbers.
 */
#define MAX_COMM_TRIES 16

enum {
	CL_WS = 1,
	CL_DIGIT = 2,
	CL_HEX = 4,
};

/* Character classes; whitespace is isspace() without the newline. */
static const unsigned char char_class[256] = {
	['\t'] = CL_WS, ['\v'] = CL_WS, ['\f'] = CL_WS, ['\r'] = CL_WS, [' '] = CL_WS,
	['0'] = CL_DIGIT | CL_HEX, ['1'] = CL_DIGIT | CL_HEX, ['2'] = CL_DIGIT | CL_HEX,
	['3'] = CL_DIGIT | CL_HEX, ['4'] = CL_DIGIT | CL_HEX, ['5'] = CL_DIGIT | CL_HEX,
	['6'] = CL_DIGIT | CL_HEX, ['7'] = CL_DIGIT | CL_HEX, ['8'] = CL_DIGIT | CL_HEX,
	['9'] = CL_DIGIT | CL_HEX,
	['a'] = CL_HEX, ['b'] = CL_HEX, ['c'] = CL_HEX, ['d'] = CL_HEX, ['e'] = CL_HEX,
	['f'] = CL_HEX,
	['A'] = CL_HEX, ['B'] = CL_HEX, ['C'] = CL_HEX, ['D'] = CL_HEX, ['E'] = CL_HEX,
	['F'] = CL_HEX,
};

static inline bool
is_ws(char c)
{
	return char_class[(unsigned char)c] & CL_WS;
}

static inline bool
is_digit(char c)
{
	return char_class[(unsigned char)c] & CL_DIGIT;
}

static inline bool
is_hex(char c)
{
	return char_class[(unsigned char)c] & CL_HEX;
}

static inline unsigned
hex_value(char c)
{
	if (c <= '9')
		return (unsigned)(c - '0');
	return (unsigned)((c | 0x20) - 'a' + 10);
}

static inline const char *
skip_ws(const char *p, const char *end)
{
	while (p < end && is_ws(*p))
		p++;
	return p;
}

static inline const char *
trim_end(const char *p, const char *end)
{
	while (end > p && is_ws(end[-1]))
		end--;
	return end;
}

/*
 * Parse the decimal digits at *pp and move *pp past them. Returns 1 with
 * *out set, 0 if there is no digit, -1 if the number overflows max.
 */
static inline int
parse_dec(const char **pp, const char *end, uint64_t max, uint64_t *out)
{
	const char *p = *pp, *s;
	uint64_t v = 0;

	if (p >= end || !is_digit(*p))
		return 0;
	while (p < end && *p == '0')
		p++;
	/* 19 digits always fit 64 bits: no check per digit */
	for (s = p; p < end && is_digit(*p); p++)
		v = v * 10 + (uint64_t)(*p - '0');
	*pp = p;
	if (p - s > 19) {
		bool overflow = false;

		for (v = 0; s < p && !overflow; s++)
			overflow = __builtin_mul_overflow(v, 10, &v) ||
				   __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v);
		if (overflow)
			return -1;
	}
	if (v > max)
		return -1;
	*out = v;
	return 1;
}

/*
 * The digits at *pp as a number past 64 bits, up to max: for a period that
 * parse_dec() found too large. Returns as parse_dec() does.
 */
static int
parse_dec_wide(const char **pp, const char *end, weight_sum max, weight_sum *out)
{
	const char *p = *pp;
	weight_sum v = 0;
	bool over = false;

	if (p >= end || !is_digit(*p))
		return 0;
	for (; p < end && is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (max - d) / 10)
			over = true;
		else
			v = v * 10 + d;
	}
	*pp = p;
	if (over)
		return -1;
	*out = v;
	return 1;
}

/* A period: parse_dec(), and past 64 bits parse_dec_wide(). */
static int
parse_period(const char **pp, const char *end, weight_sum *out)
{
	const char *start = *pp;
	uint64_t v;
	int r = parse_dec(pp, end, UINT64_MAX, &v);

	if (r > 0)
		*out = v;
	if (r >= 0)
		return r;
	*pp = start;
	return parse_dec_wide(pp, end, BUILDER_MAX_WEIGHT, out);
}

/* ------------------------------------------------------------- frame lines */

/* A frame line as text: pointers into the line. */
struct raw_frame {
	const char *addr; /* hex digits, at most 16 */
	size_t addr_len;
	const char *sym;  /* without the +0x offset; may be empty */
	size_t sym_len;
	const char *mod;  /* inside the last parenthesised group, NULL if none */
	size_t mod_len;
	/*
	 * No symbol, as perf 3.x printed one it could not name: "addr
	 * (module)" with two blanks. Then sym is the blanks but the last,
	 * which stackcollapse-perf.pl takes for the symbol, and gap_len its
	 * length; 0 otherwise.
	 */
	size_t gap_len;
};

/*
 * Split [p, end) (trimmed) into a symbol and the module in the last
 * balanced group at the end, so that "(/lib/x.so (deleted))" is one
 * module; the group must follow a blank, so that "f(int)" with no module
 * stays a symbol. Sets rf->mod (NULL if none) and returns the symbol's end.
 */
static const char *
split_module(const char *p, const char *end, struct raw_frame *rf)
{
	rf->mod = NULL;
	rf->mod_len = 0;
	rf->gap_len = 0;
	if (end > p && end[-1] == ')') {
		const char *q = memrchr(p, '(', (size_t)(end - 1 - p));
		size_t depth = 0;

		/* The usual case, no parenthesis inside the group, is found fast. */
		if (!q || memchr(q + 1, ')', (size_t)(end - 2 - q))) {
			q = end - 1;
			depth = 1;
			while (q > p) {
				q--;
				if (*q == ')') {
					depth++;
				} else if (*q == '(' && --depth == 0) {
					break;
				}
			}
		}
		if (depth == 0 && (q == p || is_ws(q[-1]))) {
			rf->mod = q + 1;
			rf->mod_len = (size_t)(end - 1 - (q + 1));
			return trim_end(p, q);
		}
	}
	return end;
}

/* Set rf's symbol to [p, sym_end) without one trailing +0x<hex> offset. */
static void
set_symbol(struct raw_frame *rf, const char *p, const char *sym_end)
{
	const char *e = sym_end;

	while (e > p && is_hex(e[-1]))
		e--;
	if (e < sym_end && e - p >= 3 && e[-1] == 'x' && e[-2] == '0' && e[-3] == '+')
		sym_end = e - 3;
	rf->sym = p;
	rf->sym_len = (size_t)(sym_end - p);
}

/*
 * Parse [p, end) (p at the first non-blank) as "addr [symbol] [(module)]".
 * need_symbol asks for a symbol and a module group, as for a frame printed
 * on a header line. Returns whether it is a frame.
 */
static bool
parse_frame(const char *p, const char *end, bool need_symbol, struct raw_frame *rf)
{
	const char *start = p, *sym_end;

	while (p < end && is_hex(*p))
		p++;
	if (p == start || p - start > 16 || (p < end && !is_ws(*p)))
		return false;
	rf->addr = start;
	rf->addr_len = (size_t)(p - start);
	p = skip_ws(p, end);
	end = trim_end(p, end);
	sym_end = split_module(p, end, rf);
	if (need_symbol && (!rf->mod || sym_end == p))
		return false;
	set_symbol(rf, p, sym_end);
	/*
	 * No symbol, and two blanks or more: the symbol is the blanks but
	 * the last, which keeps such frames apart from "addr (module)" in
	 * the frame cache; fcache_add() names them.
	 */
	if (rf->mod && sym_end == p && p - 1 - (start + rf->addr_len) >= 1 && p[-1] == ' ') {
		rf->gap_len = (size_t)(p - 1 - (start + rf->addr_len));
		rf->sym = start + rf->addr_len;
		rf->sym_len = rf->gap_len;
	}
	return true;
}

/*
 * The frame perf prints after a tracepoint's arguments (perf script -F
 * with ip,sym but no callchain): the module group at the end, and the
 * rightmost hex word before it that has a symbol after it. Arguments
 * often hold numbers, symbols seldom hold bare hex words.
 */
static bool
trailing_frame(const char *p, const char *end, struct raw_frame *rf)
{
	const char *sym_end, *te;

	end = trim_end(p, end);
	sym_end = split_module(p, end, rf);
	if (!rf->mod)
		return false;
	for (te = sym_end; te > p;) {
		const char *ts = te;

		while (ts > p && !is_ws(ts[-1]))
			ts--;
		if (ts > p && te < sym_end && te - ts <= 16) {
			const char *h = ts;

			while (h < te && is_hex(*h))
				h++;
			if (h == te) {
				rf->addr = ts;
				rf->addr_len = (size_t)(te - ts);
				set_symbol(rf, skip_ws(te, sym_end), sym_end);
				return true;
			}
		}
		te = trim_end(p, ts);
	}
	return false;
}

static bool
mem_is(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return len == n && !memcmp(s, lit, n);
}

static bool
mem_ends(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return len >= n && !memcmp(s + len - n, lit, n);
}

/* Whether [s, s+len) is prefix, one or more digits, then suffix. */
static bool
digits_between(const char *s, size_t len, const char *prefix, const char *suffix)
{
	size_t a = strlen(prefix), b = strlen(suffix);

	if (len <= a + b || memcmp(s, prefix, a) || memcmp(s + len - b, suffix, b))
		return false;
	for (size_t i = a; i < len - b; i++)
		if (!is_digit(s[i]))
			return false;
	return true;
}

/*
 * Bracketed names perf gives to user-space mappings; every other bracketed
 * module ([kernel.kallsyms], [nf_conntrack], [xfs]) is kernel code.
 */
static const char *const user_brackets[] = {
	"[unknown]", "[vdso]", "[vdso32]", "[vdso64]", "[vsyscall]", "[vvar]",
	"[vvar_vclock]", "[heap]", "[stack]", "[vectors]", "[sigpage]", "[uprobes]",
	"[jit]", "[guest.vdso]",
};

static uint32_t
module_flags(const char *m, size_t len)
{
	const char *base = m;
	size_t blen = len;

	if (len > 2 && m[0] == '[' && m[len - 1] == ']') {
		if (text_starts(m, len, "[anon") || text_starts(m, len, "[stack:"))
			return 0;
		for (size_t i = 0; i < ARRAY_SIZE(user_brackets); i++)
			if (mem_is(m, len, user_brackets[i]))
				return 0;
		return FRAME_KERNEL;
	}
	if (mem_ends(m, len, "vmlinux") || mem_ends(m, len, ".ko") ||
	    mem_ends(m, len, ".ko.xz") || mem_ends(m, len, ".ko.zst") ||
	    mem_ends(m, len, ".ko.gz"))
		return FRAME_KERNEL;
	for (size_t i = len; i > 0; i--) {
		if (m[i - 1] == '/') {
			base = m + i;
			blen = len - i;
			break;
		}
	}
	if (digits_between(base, blen, "perf-", ".map"))
		return FRAME_JIT;
	if (text_starts(base, blen, "jitted-") && mem_ends(base, blen, ".so")) {
		/* jitted-<pid>-<n>.so */
		const char *s = base + 7, *e = base + blen - 3;
		const char *dash = memchr(s, '-', (size_t)(e - s));

		if (dash && dash > s && dash + 1 < e) {
			for (const char *q = s; q < e; q++)
				if (q != dash && !is_digit(*q))
					return 0;
			return FRAME_JIT;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ header lines */

struct perf_header {
	const char *comm;
	size_t comm_len;
	int64_t pid;         /* -1 when only a tid is shown */
	int64_t tid;
	bool has_cpu;
	bool has_time;
	int64_t time;        /* ns */
	bool has_period;
	weight_sum period;   /* may pass 64 bits (builder_begin_sample_sum()) */
	bool has_event;
	const char *event;   /* without the final ':' */
	size_t event_len;
	bool has_frame;      /* a callchain-less sample: its frame */
	struct raw_frame frame;
	bool clean;          /* nothing left over that we could not read */
	bool bad_number;     /* a field overflowed */
};

/* Parse "sec.frac:" at *pp into ns; 1, 0 if not a time, -1 on overflow. */
static int
parse_time(const char **pp, const char *end, int64_t *out)
{
	const char *p = *pp;
	uint64_t sec, frac = 0;
	unsigned nd = 0;
	int r = parse_dec(&p, end, UINT64_MAX, &sec);

	if (r <= 0)
		return r;
	if (p >= end || *p != '.')
		return 0;
	for (p++; p < end && is_digit(*p); p++, nd++)
		if (nd < 9)
			frac = frac * 10 + (uint64_t)(*p - '0');
	if (p >= end || *p != ':' || (p + 1 < end && !is_ws(p[1])))
		return 0;
	if (nd > 9)
		return -1; /* finer than a ns: cannot be kept exactly */
	for (unsigned i = nd; i < 9; i++)
		frac *= 10;
	if (sec > ((uint64_t)INT64_MAX - frac) / 1000000000u)
		return -1;
	*out = (int64_t)(sec * 1000000000u + frac);
	*pp = p + 1;
	return 1;
}

/* The fields after the tid, from p. */
static void
parse_header_tail(struct perf_header *h, const char *p, const char *end)
{
	const char *q;
	int r;

	h->has_cpu = h->has_time = h->has_period = h->has_event = h->has_frame = false;
	h->bad_number = false;
	p = skip_ws(p, end);
	if (p < end && *p == '[') {
		uint64_t cpu;

		q = p + 1;
		r = parse_dec(&q, end, UINT32_MAX, &cpu);
		if (r > 0 && q < end && *q == ']' && (q + 1 == end || is_ws(q[1]))) {
			h->has_cpu = true;
			p = skip_ws(q + 1, end);
		}
	}
	q = p;
	r = parse_time(&q, end, &h->time);
	if (r < 0)
		h->bad_number = true;
	if (r > 0) {
		h->has_time = true;
		p = skip_ws(q, end);
	}
	q = p;
	r = parse_period(&q, end, &h->period);
	if (r < 0 && (q == end || is_ws(*q)))
		h->bad_number = true;
	if (r > 0 && (q == end || is_ws(*q))) {
		h->has_period = true;
		p = skip_ws(q, end);
	}
	for (q = p; q < end && !is_ws(*q); q++)
		;
	if (q > p && q[-1] == ':') {
		h->has_event = true;
		h->event = p;
		h->event_len = (size_t)(q - 1 - p);
		p = skip_ws(q, end);
	}
	/*
	 * What is left is a tracepoint's arguments, the frame of a sample
	 * without a callchain, or fields we do not read.
	 */
	if (p < end && (parse_frame(p, end, true, &h->frame) ||
			(h->has_event && trailing_frame(p, end, &h->frame))))
		h->has_frame = true;
	h->clean = !h->bad_number && (p == end || h->has_event || h->has_frame);
}

/*
 * A pid or tid: a decimal, or -1, which perf prints for a thread it could
 * not place (":-1    -1 [000] ..."). Returns as parse_dec(); *unknown is
 * set for -1.
 */
static int
parse_id(const char **pp, const char *end, uint64_t *out, bool *unknown)
{
	const char *p = *pp;

	*unknown = false;
	if (end - p >= 2 && p[0] == '-' && p[1] == '1' && (end - p == 2 || !is_digit(p[2]))) {
		*pp = p + 2;
		*out = 0;
		*unknown = true;
		return 1;
	}
	return parse_dec(pp, end, INT64_MAX, out);
}

/*
 * Parse a header line (first non-blank at line). The comm is the shortest
 * prefix followed by blanks and a tid or pid/tid, unless the fields after
 * that do not read and a longer prefix makes them read ("Web Content 2
 * 1234/1235 ..."). Returns whether it is a header.
 */
static bool
parse_header(const char *line, const char *end, struct perf_header *out)
{
	struct perf_header first;
	bool have_first = false;
	int tries = 0;

	end = trim_end(line, end);
	for (const char *c = line + 1; c < end; c++) {
		const char *p, *q;
		uint64_t a = 0, b = 0;
		bool a_unknown, b_unknown;
		int r;

		if (!is_ws(*c))
			continue;
		p = skip_ws(c, end);
		q = p;
		r = parse_id(&q, end, &a, &a_unknown);
		/*
		 * A number that overflows is an error in this header, not a
		 * reason to try a longer comm.
		 */
		if (r < 0 && (q == end || is_ws(*q) || *q == '/'))
			return false;
		if (r > 0 && q < end && *q == '/') {
			q++;
			r = parse_id(&q, end, &b, &b_unknown);
			if (r < 0 && (q == end || is_ws(*q)))
				return false;
			if (r > 0) {
				out->pid = a_unknown ? -1 : (int64_t)a;
				out->tid = b_unknown ? -1 : (int64_t)b;
			}
		} else if (r > 0) {
			out->pid = -1;
			out->tid = a_unknown ? -1 : (int64_t)a;
		}
		if (r > 0 && (q == end || is_ws(*q))) {
			out->comm = line;
			out->comm_len = (size_t)(c - line);
			parse_header_tail(out, q, end);
			if (out->bad_number)
				return false;
			if (out->clean)
				return true;
			if (!have_first) {
				first = *out;
				have_first = true;
			}
			if (++tries >= MAX_COMM_TRIES)
				break;
		}
		c = p - 1;
	}
	if (have_first)
		*out = first;
	return have_first;
}

/*
 * A line that starts at its first column yet is a frame, not a header:
 * old perf (3.x, and FlameGraph's own test inputs) printed callchains
 * without indent. It must read as "addr symbol (module)" and not as a
 * header, which stackcollapse-perf.pl tries first. Such a line continues
 * the open sample; outside one it is not understood.
 */
static bool
unindented_frame(const char *line, const char *end, struct raw_frame *rf)
{
	struct perf_header h;

	return parse_frame(line, end, true, rf) && !parse_header(line, end, &h);
}

/* A header with more than a comm and a number: a cpu, a time or an event. */
static bool
parse_strong_header(const char *line, const char *end, struct perf_header *h)
{
	return parse_header(line, end, h) && (h->has_cpu || h->has_time || h->has_event);
}

/*
 * What an indented line is. perf right-aligns the comm of callchain-less
 * samples, so an indented line may be a header; it is one when it reads as
 * a header with a cpu, time or event, even when it also reads as a frame
 * (a comm such as "cc1" is a hex number), since no symbol starts with a
 * number followed by such fields.
 */
enum indented_kind {
	IND_FRAME,
	IND_HEADER,
	IND_OTHER,
};

static enum indented_kind
classify_indented(const char *p, const char *end, struct raw_frame *rf,
		  struct perf_header *h)
{
	if (parse_frame(p, end, false, rf)) {
		if (rf->sym < end && is_digit(*rf->sym) && parse_strong_header(p, end, h))
			return IND_HEADER;
		return IND_FRAME;
	}
	if (parse_strong_header(p, end, h))
		return IND_HEADER;
	return IND_OTHER;
}

/*
 * stackcollapse-perf.pl reads the event and period of a header with
 * /:\s*(\d+)*\s+(\S+):\s*$/. Returns whether line matches, with the event
 * ($2) and the period ($1, 0 when absent). *overflow is set when $1 does
 * not fit 64 bits.
 */
static bool
perl_header_event(const char *line, const char *end, const char **ev, size_t *ev_len,
		  weight_sum *period, bool *overflow)
{
	const char *e, *s, *w, *d, *w2, *q;

	*overflow = false;
	e = trim_end(line, end);
	if (e == line || e[-1] != ':')
		return false;
	s = e - 1;
	while (s > line && !is_ws(s[-1]))
		s--;
	if (s == e - 1 || s == line)
		return false;
	/* Between a ':' and the event: blanks, maybe digits, then blanks. */
	w = s;
	while (w > line && is_ws(w[-1]))
		w--;
	d = w;
	while (d > line && is_digit(d[-1]))
		d--;
	w2 = d;
	if (d < w)
		while (w2 > line && is_ws(w2[-1]))
			w2--;
	if (w2 == line || w2[-1] != ':')
		return false;
	*ev = s;
	*ev_len = (size_t)(e - 1 - s);
	*period = 0;
	q = d;
	if (d < w && parse_period(&q, w, period) < 0)
		*overflow = true;
	return true;
}

/* ------------------------------------------------------------------ parser */

/*
 * The frame cache's hash and compare for short keys that lie inside a
 * line: tails are read with overlapping loads rather than copied to the
 * stack, which costs a store-forwarding stall per key in hash_bytes().
 */
static inline uint64_t
load32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t
load64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t
key_hash(const char *s, size_t len, uint64_t seed)
{
	uint64_t h = seed ^ HASH_K0 ^ (len * HASH_K2);

	if (len >= 8) {
		const char *last = s + len - 8;

		for (; s < last; s += 8)
			h = hash_mix(h ^ load64(s), HASH_K1);
		h = hash_mix(h ^ load64(last), HASH_K1);
	} else if (len >= 4) {
		h = hash_mix(h ^ (load32(s) << 32 | load32(s + len - 4)), HASH_K1);
	} else if (len) {
		uint64_t v = (uint64_t)(unsigned char)s[0] << 16 |
			     (uint64_t)(unsigned char)s[len / 2] << 8 | (unsigned char)s[len - 1];

		h = hash_mix(h ^ v, HASH_K1);
	}
	return hash_mix(h, HASH_K2);
}

static inline bool
key_eq(const char *a, const char *b, size_t len)
{
	if (len >= 8) {
		for (size_t i = 0; i + 8 < len; i += 8)
			if (load64(a + i) != load64(b + i))
				return false;
		return load64(a + len - 8) == load64(b + len - 8);
	}
	if (len >= 4)
		return load32(a) == load32(b) && load32(a + len - 4) == load32(b + len - 4);
	for (size_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/*
 * Threads seen lately, by tid: system-wide profiles interleave many
 * threads, and a hit saves interning the comm. Longer comms skip it.
 */
#define TCACHE_SIZE 256
#define TCACHE_COMM 40

struct tcache_entry {
	int64_t pid, tid;
	thread_id id;       /* THREAD_NONE for an empty entry */
	uint32_t comm_len;
	char comm[TCACHE_COMM];
};

/*
 * In front of the frame cache, a small direct-mapped cache keyed on the
 * whole text after the address ("sym+0x1d (module)"): a return address
 * repeats its line exactly, and a hit skips splitting the line and the
 * second lookup. Fixed size, so its memory stays small.
 *
 * A frame that keeps its address (for the symbolizer) is a frame of its
 * own per address: the entry also holds the frame its line made last,
 * so that a hit needs no lookup in the set's frame table either. That
 * lookup, two dependent reads in tables of a MiB that the text streaming
 * through the cache keeps evicting, was most of what keeping addresses
 * cost the parse; a memo of its own beside this one missed the cache in
 * the same way. An entry is two cache lines (128 bytes), aligned.
 */
#define LCACHE_SIZE 4096
#define LCACHE_KEY 96

/*
 * The frames of lines that keep their addresses, by frame cache entry,
 * slot and address, for every line the line cache cannot answer. It
 * misses when another text took the line's slot (4,771 texts share its
 * 4,096 slots on the 100 MB system profile), for every address of an
 * unnamed line ("[unknown] (module)": one text, one entry, hundreds of
 * addresses under xz's liblzma), and for a text too long for its key.
 * Each such miss was a lookup in the set's frame table, two dependent
 * reads in tables that the text streaming through the cache keeps
 * evicting: 85 k of them on that profile, against 12 k distinct frames.
 * This table keeps every frame of its range (16 bytes each), and grows.
 */
struct amap_entry {
	uint64_t addr;
	uint32_t key;    /* frame cache entry * 4 + amap slot, UINT32_MAX: empty */
	frame_id frame;  /* its frame (in modules: an enum mod_use) */
};

struct amap {
	struct amap_entry *e;
	uint32_t mask, nr;
};

static void
amap_init(struct amap *m, uint32_t size)
{
	m->e = xreallocarray(NULL, size, sizeof(*m->e));
	memset(m->e, 0xff, (size_t)size * sizeof(*m->e));
	m->mask = size - 1;
	m->nr = 0;
}

static inline uint32_t
amap_pos(const struct amap *m, uint32_t key, uint64_t addr)
{
	uint32_t i = (uint32_t)hash_pair(key, addr) & m->mask;

	while (m->e[i].key != UINT32_MAX && (m->e[i].key != key || m->e[i].addr != addr))
		i = (i + 1) & m->mask;
	return i;
}

/* The frame at (key, addr), or FRAME_NONE. */
static inline frame_id
amap_get(const struct amap *m, uint32_t key, uint64_t addr)
{
	const struct amap_entry *e = &m->e[amap_pos(m, key, addr)];

	return e->key == UINT32_MAX ? FRAME_NONE : e->frame;
}

static void
amap_put(struct amap *m, uint32_t key, uint64_t addr, frame_id frame)
{
	struct amap_entry *e = &m->e[amap_pos(m, key, addr)];

	if (e->key == UINT32_MAX)
		m->nr++;
	e->key = key;
	e->addr = addr;
	e->frame = frame;
	if ((uint64_t)m->nr * 2 > (uint64_t)m->mask + 1) {
		struct amap old = *m;

		if (old.mask >= UINT32_MAX / 2)
			die("too many frames");
		amap_init(m, (old.mask + 1) * 2);
		for (uint32_t i = 0; i <= old.mask; i++)
			if (old.e[i].key != UINT32_MAX)
				m->e[amap_pos(m, old.e[i].key, old.e[i].addr)] = old.e[i];
		m->nr = old.nr;
		free(old.e);
	}
}

struct lcache_entry {
	uint32_t hash32;
	uint32_t len;       /* 0 for an empty entry */
	uint32_t entry;     /* in the frame cache */
	uint32_t seq;       /* which filling of the entry this is */
	uint64_t addr;      /* the address frame[] are for */
	/* its frame at addr, as a sample's first user frame and past it, or FRAME_NONE */
	frame_id frame[2];
	char key[LCACHE_KEY];
};

struct fcache_entry {
	size_t key;         /* offset of symbol then module bytes in keys */
	uint32_t sym_len, mod_len;
	uint32_t hash32;
	frame_id id;        /* FRAME_NONE until used without a srcline */
	bool keep_addr;     /* keep its address, for the symbolizer */
	/*
	 * FRAME_UNNAMED, and keep_unknown_addrs asks for its address: a
	 * frame of a known module gets it in its name, "[libc.so.6+0x1f2]";
	 * collapse (collapse_compat) also keeps it in the frame, for any
	 * module, to print "[libc.so.6 <1f2>]" or "[unknown <1f2>]".
	 */
	bool addr_in_name;
	bool unnamed_addr;  /* keep the address in the frame, for collapse */
	struct frame f;     /* name, module and flags */
	/* For perf's inline chains (inline_chains()): */
	uint64_t fn_key;    /* profile_function_key() of its name, 0 until needed */
	frame_id real_id;   /* f as a real function, no address; FRAME_NONE until needed */
};

/*
 * A frame line that is one of perf's "(inlined)" lines, may be one (no
 * module: with -F +srcline the source line says), or comes right after one.
 */
struct inline_line {
	uint32_t pos;      /* its frame's index in the builder's open sample */
	uint32_t entry;    /* its frame cache entry */
	uint64_t addr;
	bool inlined;
	bool leaf;         /* the sample's first user-space frame line */
};

/* The processes a parser has seen samples of. */
enum proc_state {
	PROC_NONE, /* no sample yet */
	PROC_ONE,  /* one process: no process frames */
	PROC_MANY, /* several: every sample has its process frame */
};

struct perf_parser {
	struct profile_set *ps;
	const struct import_options *opts;
	struct builder b;
	uint64_t sample_line;     /* header line of the open sample */

	/* raw frame text -> frame, so that hits intern nothing */
	struct fcache_entry *fc;
	uint32_t fc_nr, fc_alloc;
	uint32_t *fc_slots;       /* entry index + 1, 0 for empty */
	uint32_t fc_mask;
	char *keys;
	size_t keys_len, keys_alloc;
	struct lcache_entry *lcache;
	struct strbuf name_buf;   /* for the names of unnamed frames */

	/* the last frame line, held back until we know if a srcline follows */
	bool pending;
	bool pend_unnamed_addr;   /* it is unnamed and keeps its address (collapse) */
	/*
	 * User-space frame lines so far in the open sample, perf's own inline
	 * frames aside: past the first, perf prints return addresses (a
	 * kernel frame's interrupted user code is an exact address).
	 */
	uint32_t user_frames;
	bool header_frame;        /* the frame being read is on the header line */
	/*
	 * perf's inline frames of the open sample, and each frame line right
	 * after one (see inline_chains()); not with collapse_compat.
	 */
	bool track_inline;
	bool prev_inlined;        /* the last frame line was "(inlined)" */
	bool folded;              /* inline_chains() dropped a frame */
	struct inline_line *inl;
	uint32_t nr_inl, alloc_inl;
	/* (entry * 2 + is a return address, address) -> its real_frame() */
	struct amap real_map;
	/* SYMBOLS_RESOLVE: module id -> enum mod_use (module_resolvable()) */
	struct amap modules;
	struct strbuf mod_path;
	uint32_t pend_entry;      /* its cache entry, or UINT32_MAX: use pend_id or pend */
	frame_id pend_id;         /* its frame, from the line cache, or FRAME_NONE: use pend */
	struct frame pend;
	/* where flush_pending() notes pend's frame: line cache entry, its filling, slot */
	struct lcache_entry *pend_le;
	uint32_t pend_seq, pend_slot;
	uint64_t pend_addr;
	struct amap amap;
	uint32_t pend_am_key;     /* the key flush_pending() notes pend's frame under in amap */
	uint32_t lcache_seq;      /* fillings of line cache entries so far */

	/* recent threads, and the last header's profile */
	struct tcache_entry *tcache;
	/*
	 * Process roots (see the top of this file), with collapse_compat
	 * too: collapse writes the comm itself and skips them, but the
	 * lens's call paths start at them, as in report.
	 */
	enum proc_state proc_state;
	thread_id proc_thread;    /* PROC_ONE: a thread of that process */
	thread_id proc_below;     /* PROC_ONE: the threads below it are of it too */
	frame_id *proc_frames;    /* by thread_id of ps: FRAME_NONE until needed */
	uint32_t nr_proc_frames;
	struct strbuf last_event;
	struct profile *last_profile;

	uint64_t samples;
	uint64_t nr_bad, first_bad;
	struct strbuf bad_excerpt;

	/* progress */
	uint64_t reported;
	/*
	 * The bytes this parser's set will hold samples from, when known (a
	 * plain file, or all of it for the first range of a parallel load,
	 * which the others are merged into): at each progress step, the
	 * sample arrays and the stack table are sized from the share read
	 * so far (reserve_room()).
	 */
	uint64_t expect_bytes;
	/*
	 * For a range of a parallel load: its index, and the lowest index
	 * of a range that failed. Ranges after a failed one stop early; those
	 * before it must finish, since their line counts place its error.
	 */
	int range;
	_Atomic int *failed_range;
	bool stopped;             /* we stopped because of it */
};

static void
parser_init(struct perf_parser *pp, struct profile_set *ps,
	    const struct import_options *opts)
{
	memset(pp, 0, sizeof(*pp));
	pp->ps = ps;
	pp->opts = opts;
	builder_init(&pp->b, ps);
	pp->b.max_samples = opts ? opts->max_samples : 0;
	pp->fc_mask = 1023;
	pp->fc_slots = xzalloc_table((size_t)pp->fc_mask + 1, sizeof(*pp->fc_slots));
	pp->keys_alloc = 64 * 1024;
	pp->keys = xmalloc(pp->keys_alloc);
	/* Aligned, so that an entry is two cache lines and not three. */
	if (posix_memalign((void **)&pp->lcache, 64, LCACHE_SIZE * sizeof(*pp->lcache)))
		die("out of memory");
	memset(pp->lcache, 0, LCACHE_SIZE * sizeof(*pp->lcache));
	amap_init(&pp->amap, 1024);
	pp->tcache = xmalloc(TCACHE_SIZE * sizeof(*pp->tcache));
	for (size_t i = 0; i < TCACHE_SIZE; i++)
		pp->tcache[i].id = THREAD_NONE;
	strbuf_init(&pp->last_event, 0);
	strbuf_init(&pp->bad_excerpt, 0);
	strbuf_init(&pp->mod_path, 0);
	amap_init(&pp->modules, 64);
	strbuf_init(&pp->name_buf, 0);
	pp->track_inline = !opts || !opts->collapse_compat;
	amap_init(&pp->real_map, 64);
}

static void
parser_release(struct perf_parser *pp)
{
	builder_release(&pp->b);
	free(pp->inl);
	free(pp->real_map.e);
	free(pp->fc);
	free(pp->fc_slots);
	free(pp->keys);
	free(pp->lcache);
	free(pp->amap.e);
	free(pp->tcache);
	free(pp->proc_frames);
	strbuf_release(&pp->last_event);
	strbuf_release(&pp->bad_excerpt);
	strbuf_release(&pp->mod_path);
	free(pp->modules.e);
	strbuf_release(&pp->name_buf);
}

/*
 * Free what only parsing needs (the line, frame and thread caches): a
 * parallel load keeps a range's parser, for its counts and its process
 * roots, until the range is merged.
 */
static void
parser_drop_caches(struct perf_parser *pp)
{
	free(pp->fc);
	free(pp->fc_slots);
	free(pp->keys);
	free(pp->lcache);
	free(pp->amap.e);
	free(pp->tcache);
	pp->fc = NULL;
	pp->fc_slots = NULL;
	pp->keys = NULL;
	pp->lcache = NULL;
	pp->amap.e = NULL;
	pp->tcache = NULL;
}

static void
fcache_grow(struct perf_parser *pp)
{
	uint32_t n = (pp->fc_mask + 1) * 2, m = n - 1;
	uint32_t *slots = xzalloc_table(n, sizeof(*slots));

	for (uint32_t i = 0; i < pp->fc_nr; i++) {
		uint32_t pos = pp->fc[i].hash32 & m;

		while (slots[pos])
			pos = (pos + 1) & m;
		slots[pos] = i + 1;
	}
	free(pp->fc_slots);
	pp->fc_slots = slots;
	pp->fc_mask = m;
}

/*
 * Would stackcollapse-perf.pl --inline hand this module to addr2line?
 * It does unless the module matches /(perf-\d+.map|kernel\.|\[[^\]]+\])/.
 */
static bool
module_for_addr2line(const char *m, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (m[i] == '[') {
			const char *close = memchr(m + i + 1, ']', len - i - 1);

			if (close && close > m + i + 1)
				return false;
		}
		if (len - i >= 7 && !memcmp(m + i, "kernel.", 7))
			return false;
		if (len - i >= 5 && !memcmp(m + i, "perf-", 5)) {
			size_t j = i + 5;

			while (j < len && is_digit(m[j]))
				j++;
			/* \d+, any one character, then "map" */
			if (j > i + 5 && len - j >= 4 && !memcmp(m + j + 1, "map", 3))
				return false;
		}
	}
	return true;
}

/* What the symbolizer can do with a module's frames (module_resolvable()). */
enum mod_use {
	MOD_NONE,    /* nothing: not a file it can read */
	MOD_UNNAMED, /* name those perf left unnamed, perhaps */
	MOD_ALL,     /* more than perf, anywhere: DWARF, .symtab... */
};

/*
 * What can SYMBOLS_RESOLVE do with the frames of module m (interned as
 * id)? Only a readable regular file is looked up. Where the file has
 * nothing beyond the .dynsym perf read (symbols_beyond_dynsym(): most of
 * a distribution's /usr/bin), the frames perf named keep perf's names
 * (symbolizer_defer_to_perf()): keeping their addresses would only split
 * their frames and stacks. On the 100 MB system profile, cc1's named
 * frames alone had 2,247 addresses. Each module is asked once: a stat()
 * and an access() for every new frame cache entry cost that profile 4 ms.
 */
static enum mod_use
module_resolvable(struct perf_parser *pp, const char *m, size_t len, str_id id,
		  uint32_t flags)
{
	struct stat st;
	frame_id known;
	enum mod_use use = MOD_NONE;

	if (!len || m[0] != '/' || (flags & (FRAME_KERNEL | FRAME_JIT)) || memchr(m, '\0', len))
		return MOD_NONE;
	known = amap_get(&pp->modules, id, 0);
	if (known != FRAME_NONE)
		return (enum mod_use)known;
	strbuf_setlen(&pp->mod_path, 0);
	strbuf_add(&pp->mod_path, m, len);
	if (stat(pp->mod_path.buf, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(pp->mod_path.buf, R_OK) == 0)
		use = symbols_beyond_dynsym(pp->mod_path.buf) ? MOD_ALL : MOD_UNNAMED;
	amap_put(&pp->modules, id, 0, use);
	return use;
}

/*
 * The name of a frame perf could not name, from its module m as
 * stackcollapse-perf.pl names it: "[<basename>]", or the module itself
 * when perf bracketed it ("[kernel.kallsyms]", "[vdso]"), so that
 * unnamed frames of different modules read apart. Sets *known to whether
 * there was a module to name it by, and returns "[unknown]" if not.
 */
static str_id
unnamed_name(struct perf_parser *pp, const char *m, size_t len, bool *known)
{
	struct strbuf *sb = &pp->name_buf;
	size_t base = 0;

	*known = len && !mem_is(m, len, "[unknown]");
	if (!*known)
		return ps_str(pp->ps, "[unknown]", 9);
	if (m[0] == '[' && m[len - 1] == ']' && len > 2)
		return ps_str(pp->ps, m, len);
	for (size_t i = len; i > 0; i--) {
		if (m[i - 1] == '/') {
			base = i;
			break;
		}
	}
	/* "/dir/" has no basename: the module as it is, rather than "[]". */
	if (base == len)
		base = 0;
	strbuf_reset(sb);
	strbuf_addch(sb, '[');
	strbuf_add(sb, m + base, len - base);
	strbuf_addch(sb, ']');
	return ps_str(pp->ps, sb->buf, sb->len);
}

/* Make the cache entry for a frame seen for the first time. */
static uint32_t
fcache_add(struct perf_parser *pp, const struct raw_frame *rf, uint32_t h32, uint32_t pos)
{
	struct profile_set *ps = pp->ps;
	struct fcache_entry *e;
	const char *mod = rf->mod ? rf->mod : "";
	size_t klen = rf->sym_len + rf->mod_len;
	uint32_t id;

	if (rf->sym_len > UINT32_MAX || rf->mod_len > UINT32_MAX)
		die("frame name of %zu bytes is too long", klen);
	ALLOC_GROW_BY(pp->keys, pp->keys_len, klen, pp->keys_alloc);
	memcpy(pp->keys + pp->keys_len, rf->sym, rf->sym_len);
	memcpy(pp->keys + pp->keys_len + rf->sym_len, mod, rf->mod_len);

	/* amap's keys are an entry * 4 + 2 at most, below UINT32_MAX (empty). */
	if (pp->fc_nr >= UINT32_MAX / 4)
		die("too many distinct frame lines");
	ALLOC_GROW(pp->fc, pp->fc_nr, pp->fc_alloc);
	id = pp->fc_nr++;
	e = &pp->fc[id];
	memset(e, 0, sizeof(*e));
	e->key = pp->keys_len;
	e->sym_len = (uint32_t)rf->sym_len;
	e->mod_len = (uint32_t)rf->mod_len;
	e->hash32 = h32;
	e->id = FRAME_NONE;
	e->real_id = FRAME_NONE;
	pp->keys_len += klen;

	if (mem_is(mod, rf->mod_len, "inlined")) {
		e->f.module = STR_EMPTY;
		e->f.flags = FRAME_INLINED;
	} else {
		e->f.module = ps_str(ps, mod, rf->mod_len);
		e->f.flags = module_flags(mod, rf->mod_len);
	}
	/* perf prints [unknown] for a symbol it cannot name: name it by its module. */
	if (rf->gap_len && pp->opts->collapse_compat) {
		/* Old perf printed no name: the reference's frame is the blanks. */
		e->f.name = ps_str(ps, rf->sym, rf->sym_len);
	} else if (!rf->sym_len || rf->gap_len || mem_is(rf->sym, rf->sym_len, "[unknown]")) {
		bool known;

		if (e->f.flags & FRAME_INLINED)
			e->f.name = unnamed_name(pp, "", 0, &known);
		else
			e->f.name = unnamed_name(pp, mod, rf->mod_len, &known);
		e->f.flags |= FRAME_UNNAMED;
		e->addr_in_name = pp->opts->keep_unknown_addrs && known;
		e->unnamed_addr = pp->opts->keep_unknown_addrs && pp->opts->collapse_compat;
	} else {
		e->f.name = ps_str(ps, rf->sym, rf->sym_len);
	}
	if (pp->opts->symbols == SYMBOLS_KEEP)
		e->keep_addr = module_for_addr2line(mod, rf->mod_len);
	else if (pp->opts->symbols == SYMBOLS_RESOLVE && !(e->f.flags & FRAME_INLINED))
		switch (module_resolvable(pp, mod, rf->mod_len, e->f.module, e->f.flags)) {
		case MOD_ALL:
			e->keep_addr = true;
			break;
		case MOD_UNNAMED:
			e->keep_addr = (e->f.flags & FRAME_UNNAMED) != 0;
			break;
		case MOD_NONE:
			break;
		}

	pp->fc_slots[pos] = id + 1;
	if ((uint64_t)pp->fc_nr * 2 > (uint64_t)pp->fc_mask + 1)
		fcache_grow(pp);
	return id;
}

static inline uint32_t
fcache_get(struct perf_parser *pp, const struct raw_frame *rf)
{
	const char *mod = rf->mod ? rf->mod : "";
	uint64_t h = key_hash(mod, rf->mod_len, key_hash(rf->sym, rf->sym_len, 0));
	uint32_t h32 = (uint32_t)h;
	uint32_t pos = h32 & pp->fc_mask;

	for (;; pos = (pos + 1) & pp->fc_mask) {
		uint32_t slot = pp->fc_slots[pos];
		const struct fcache_entry *e;

		if (!slot)
			break;
		e = &pp->fc[slot - 1];
		if (e->hash32 == h32 && e->sym_len == rf->sym_len && e->mod_len == rf->mod_len &&
		    key_eq(pp->keys + e->key, rf->sym, rf->sym_len) &&
		    key_eq(pp->keys + e->key + rf->sym_len, mod, rf->mod_len))
			return slot - 1;
	}
	return fcache_add(pp, rf, h32, pos);
}

/* Note id as line cache entry le's frame at addr, in slot. */
static inline void
note_frame(struct lcache_entry *le, uint64_t addr, uint32_t slot, frame_id id)
{
	if (le->addr != addr) {
		le->addr = addr;
		le->frame[0] = le->frame[1] = FRAME_NONE;
	}
	le->frame[slot] = id;
}

static inline void
flush_pending(struct perf_parser *pp)
{
	frame_id id;

	if (!pp->pending)
		return;
	pp->pending = false;
	if (pp->pend_entry != UINT32_MAX) {
		struct fcache_entry *e = &pp->fc[pp->pend_entry];

		if (e->id == FRAME_NONE)
			e->id = profile_set_frame(pp->ps, &e->f);
		id = e->id;
	} else if (pp->pend_id != FRAME_NONE) {
		id = pp->pend_id;
	} else {
		struct lcache_entry *le = pp->pend_le;

		id = profile_set_frame(pp->ps, &pp->pend);
		amap_put(&pp->amap, pp->pend_am_key, pp->pend_addr, id);
		/* The entry may have been filled again by the line after. */
		if (le && le->seq == pp->pend_seq)
			note_frame(le, pp->pend_addr, pp->pend_slot, id);
	}
	builder_push_frame(&pp->b, id);
}

/*
 * The name of unnamed frame e (addr_in_name) at addr: its module's name
 * with the address, "[libc.so.6+0x1f2]" for "[libc.so.6]". Interned per
 * line, which only --addrs pays.
 */
static str_id
addr_name(struct perf_parser *pp, const struct fcache_entry *e, uint64_t addr)
{
	struct strbuf *sb = &pp->name_buf;
	char hex[20];
	size_t n = sizeof(hex);

	/* "+0x<hex>]" backwards, without printf's cost on every line */
	hex[--n] = ']';
	do
		hex[--n] = "0123456789abcdef"[addr & 15];
	while (addr >>= 4);
	hex[--n] = 'x';
	hex[--n] = '0';
	hex[--n] = '+';
	strbuf_reset(sb);
	/* the module's name without its closing bracket */
	strbuf_add(sb, ps_get(pp->ps, e->f.name), intern_len(&pp->ps->strings, e->f.name) - 1);
	strbuf_add(sb, hex + n, sizeof(hex) - n);
	return ps_str(pp->ps, sb->buf, sb->len);
}

/*
 * Note the frame line being read (cache entry idx) for inline_chains().
 * Kept out of frame_entry_seen(), whose other lines are the hot path.
 */
static __attribute__((noinline)) void
inline_seen(struct perf_parser *pp, uint32_t idx, const char *addr_text, size_t addr_len)
{
	struct inline_line *l;
	uint64_t addr = 0;

	pp->prev_inlined = !pp->header_frame && (pp->fc[idx].f.flags & FRAME_INLINED);
	if (pp->header_frame)
		return;
	/* The line's digits are hex (parse_frame()): no branch per digit. */
	for (size_t i = 0; i < addr_len; i++) {
		unsigned c = (unsigned char)addr_text[i];

		addr = addr << 4 | ((c & 0xf) + 9 * (c >> 6));
	}
	ALLOC_GROW(pp->inl, pp->nr_inl, pp->alloc_inl);
	l = &pp->inl[pp->nr_inl++];
	/* flush_pending() pushed the frame before: this one comes next. */
	l->pos = (uint32_t)pp->b.nr_frames;
	l->entry = idx;
	l->addr = addr;
	l->inlined = pp->prev_inlined;
	/* Kernel lines do not come here; no user line came before. */
	l->leaf = pp->nr_inl == 1 && !pp->user_frames;
}

/*
 * The smallest period of the chain of cache entries l[0 .. n): recursion
 * repeats one address's chain, line for line.
 */
static uint32_t
chain_period(const struct inline_line *l, uint32_t n)
{
	for (uint32_t p = 1; p < n; p++) {
		uint32_t k = p;

		if (n % p)
			continue;
		while (k < n && l[k].entry == l[k - p].entry)
			k++;
		if (k == n)
			return p;
	}
	return n;
}

/* profile_function_key() of cache entry idx's name, computed once. */
static uint64_t
entry_fn_key(struct perf_parser *pp, uint32_t idx)
{
	struct fcache_entry *e = &pp->fc[idx];

	if (!e->fn_key)
		e->fn_key = profile_function_key(ps_get(pp->ps, e->f.name),
						 intern_len(&pp->ps->strings, e->f.name));
	return e->fn_key;
}

/*
 * One chain of perf's, l[0 .. n), innermost first, at one address: drop
 * each inline frame that is the function around it under another name
 * (profile_same_function()), as when glibc's debug info names
 * _IO_default_xsputn's own body __GI__IO_default_xsputn. Returns whether
 * it dropped one (its frame is FRAME_NONE).
 */
static bool
fold_chain(struct perf_parser *pp, const struct inline_line *l, uint32_t n)
{
	frame_id *fr = pp->b.frames;
	uint64_t around;
	bool folded = false;

	if (n < 2)
		return false;
	around = entry_fn_key(pp, l[n - 1].entry);
	for (uint32_t k = n - 1; k-- > 0;) {
		uint64_t key = entry_fn_key(pp, l[k].entry);

		if (key == around) {
			fr[l[k].pos] = FRAME_NONE;
			folded = true;
		} else {
			around = key;
		}
	}
	return folded;
}

/*
 * The real function of a chain perf printed all "(inlined)": its frame,
 * no longer inlined. With SYMBOLS_RESOLVE it keeps its address and no
 * module: the symbolizer finds which of the modules around it has that
 * function there (resolve.h).
 */
static frame_id
real_frame(struct perf_parser *pp, const struct inline_line *l, bool leaf)
{
	struct fcache_entry *e = &pp->fc[l->entry];
	frame_id old = pp->b.frames[l->pos], id;
	/* A frame of its own line (no srcline after it) is cached. */
	bool plain = old == e->id;
	bool addr = pp->opts->symbols == SYMBOLS_RESOLVE && !(e->f.flags & FRAME_UNNAMED);
	uint32_t key = l->entry * 2 + !leaf;
	struct frame f;

	if (plain && !addr && e->real_id != FRAME_NONE)
		return e->real_id;
	if (plain && addr && (id = amap_get(&pp->real_map, key, l->addr)) != FRAME_NONE)
		return id;
	f = pp->ps->frames[old];
	f.flags &= ~(uint32_t)FRAME_INLINED;
	if (addr) {
		f.addr = l->addr;
		if (!leaf)
			f.flags |= FRAME_RETADDR;
	}
	id = profile_set_frame(pp->ps, &f);
	if (plain && !addr)
		e->real_id = id;
	else if (plain)
		amap_put(&pp->real_map, key, l->addr, id);
	return id;
}

/*
 * At the end of a sample with "(inlined)" lines: perf 6.x prints, for an
 * address, the functions inlined there, innermost first, all at that
 * address, then the real function with its module. Where the debug info
 * names the real function otherwise than the ELF symbol perf names it by
 * (msort_with_tmp for msort_with_tmp.part.0, __GI___snprintf for
 * __snprintf), perf prints it "(inlined)" too, and no line with a
 * module (new_inline_sym() in perf's srcline.c): the last line of such a
 * run is the real function, a frame perf report counts. So:
 *  - a run of lines at one address that ends with a module is a chain;
 *  - a run that ends "(inlined)" is the chain of the leaf's address, or
 *    at a return address the same chain once per level of recursion
 *    (perf prints each level's): cut at the smallest period; the last
 *    line of each chain is its real function (real_frame());
 *  - in every chain an inline frame that is the function around it folds
 *    into it (fold_chain()).
 * Only samples with "(inlined)" lines (or lines of no module) come here.
 */
static __attribute__((noinline)) void
inline_chains(struct perf_parser *pp)
{
	struct inline_line *l = pp->inl;
	frame_id *fr = pp->b.frames;
	uint32_t n = pp->nr_inl;
	size_t kept = 0;

	/* Every line noted is a frame of the sample (positions only grow). */
	if (l[n - 1].pos >= pp->b.nr_frames)
		BUG("inline_chains(): line %u past the sample's %zu frames", l[n - 1].pos,
		    pp->b.nr_frames);
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && l[j].pos == l[j - 1].pos + 1 && l[j].addr == l[i].addr; j++)
			;
		for (uint32_t s = i, t; s < j; s = t) {
			uint32_t p;

			for (t = s; t < j && l[t].inlined; t++)
				;
			if (t < j) {
				/* Ended by the real function's line. */
				pp->folded |= fold_chain(pp, l + s, t + 1 - s);
				t++;
				continue;
			}
			p = l[s].leaf ? t - s : chain_period(l + s, t - s);
			for (uint32_t c = s; c < t; c += p) {
				const struct inline_line *r = &l[c + p - 1];

				fr[r->pos] = real_frame(pp, r, l[s].leaf);
				pp->folded |= fold_chain(pp, l + c, p);
			}
		}
	}
	if (pp->folded) {
		for (size_t i = 0; i < pp->b.nr_frames; i++)
			if (fr[i] != FRAME_NONE)
				fr[kept++] = fr[i];
		pp->b.nr_frames = kept;
		pp->folded = false;
	}
	pp->nr_inl = 0;
	pp->prev_inlined = false;
}

/*
 * A frame line (its cache entry idx, its address text) in the open sample;
 * le is its line cache entry, or NULL.
 */
static inline void
frame_entry_seen(struct perf_parser *pp, uint32_t idx, const char *addr_text,
		 size_t addr_len, struct lcache_entry *le)
{
	const struct fcache_entry *e = &pp->fc[idx];
	/*
	 * A frame on the header line (no callchain) has the IP as the process
	 * saw it, not a file offset: nothing the symbolizer could use.
	 */
	bool keep = e->keep_addr && !pp->header_frame;

	flush_pending(pp);
	/* A line of no module may be inline too: its srcline says (srcline_seen()). */
	if (__builtin_expect(pp->prev_inlined ||
				     (pp->track_inline && ((e->f.flags & FRAME_INLINED) ||
							   e->f.module == STR_EMPTY)),
			     0))
		inline_seen(pp, idx, addr_text, addr_len);
	pp->pending = true;
	pp->pend_unnamed_addr = e->unnamed_addr;
	if (e->unnamed_addr || e->addr_in_name || keep) {
		uint64_t addr = 0;
		/* Past the first user frame, the frame may differ (FRAME_RETADDR). */
		uint32_t slot = pp->user_frames != 0;

		for (size_t i = 0; i < addr_len; i++)
			addr = addr << 4 | hex_value(addr_text[i]);
		pp->pend_entry = UINT32_MAX;
		if (le && le->addr == addr && le->frame[slot] != FRAME_NONE) {
			pp->pend_id = le->frame[slot];
			goto counted;
		}
		/* A header line's frame keeps no address: a slot of its own. */
		pp->pend_am_key = idx * 4 + (pp->header_frame ? 2 : slot);
		pp->pend_id = amap_get(&pp->amap, pp->pend_am_key, addr);
		if (pp->pend_id != FRAME_NONE) {
			if (le)
				note_frame(le, addr, slot, pp->pend_id);
			goto counted;
		}
		pp->pend_le = le;
		pp->pend_seq = le ? le->seq : 0;
		pp->pend_slot = slot;
		pp->pend_addr = addr;
		pp->pend = e->f;
		/*
		 * In the name, the address splits the frame; in the frame,
		 * only who reads it wants it: the symbolizer (where it has a
		 * module to read) and collapse.
		 */
		pp->pend.addr = keep || e->unnamed_addr ? addr : 0;
		if (e->addr_in_name)
			pp->pend.name = addr_name(pp, e, addr);
		if (keep && pp->opts->symbols == SYMBOLS_RESOLVE && pp->user_frames)
			pp->pend.flags |= FRAME_RETADDR;
	} else {
		pp->pend_entry = idx;
	}
counted:
	if (!(e->f.flags & (FRAME_KERNEL | FRAME_INLINED)))
		pp->user_frames++;
}

static inline void
frame_seen(struct perf_parser *pp, const struct raw_frame *rf)
{
	frame_entry_seen(pp, fcache_get(pp, rf), rf->addr, rf->addr_len, NULL);
}

/*
 * The line cache for an indented line (p at its first non-blank): the
 * entry its text after the address maps to, or NULL when the line cannot
 * be a frame line taken on its own (no symbol, or one starting with a
 * digit, which may make it a header). *hit says whether the entry is the
 * line's.
 */
static inline struct lcache_entry *
lcache_find(struct perf_parser *pp, const char *p, const char *end, const char **addr_end,
	    const char **tail, size_t *tail_len, uint32_t *h32, bool *hit)
{
	const char *a = p, *t, *e;
	struct lcache_entry *le;
	uint64_t h;

	while (a < end && is_hex(*a))
		a++;
	if (a == p || a - p > 16 || a == end || !is_ws(*a))
		return NULL;
	t = skip_ws(a, end);
	e = trim_end(t, end);
	/* No symbol ("addr  (module)"): the blanks matter, see parse_frame(). */
	if (t == e || is_digit(*t) || *t == '(' || (size_t)(e - t) > LCACHE_KEY)
		return NULL;
	h = key_hash(t, (size_t)(e - t), 0);
	le = &pp->lcache[h % LCACHE_SIZE];
	*addr_end = a;
	*tail = t;
	*tail_len = (size_t)(e - t);
	*h32 = (uint32_t)(h >> 32);
	*hit = le->len == *tail_len && le->hash32 == *h32 && key_eq(le->key, t, *tail_len);
	return le;
}

/* A srcline line after a frame: "file:line", or any text as the file. */
static void
srcline_seen(struct perf_parser *pp, const char *p, const char *end)
{
	const char *colon = NULL, *q;
	uint64_t line = 0;
	bool inlined = false;
	struct frame f;

	end = trim_end(p, end);
	/*
	 * With -F +srcline perf prints an inline frame with no module and
	 * says "(inlined)" after its line: one more "(inlined)" line for
	 * inline_chains(), which noted it already (frame_entry_seen()).
	 */
	if (pp->nr_inl && pp->inl[pp->nr_inl - 1].pos == pp->b.nr_frames &&
	    (size_t)(end - p) > 10 && !memcmp(end - 10, " (inlined)", 10)) {
		end = trim_end(p, end - 10);
		pp->inl[pp->nr_inl - 1].inlined = true;
		pp->prev_inlined = true;
		inlined = true;
		/* frame_entry_seen() counted it as a user frame of its own */
		if (pp->user_frames)
			pp->user_frames--;
	}
	if (pp->pend_entry != UINT32_MAX) {
		f = pp->fc[pp->pend_entry].f;
	} else {
		f = pp->pend_id != FRAME_NONE ? pp->ps->frames[pp->pend_id] : pp->pend;
		/* perf resolved this frame itself: nothing for the symbolizer. */
		f.flags &= ~(uint32_t)FRAME_RETADDR;
		if (!pp->pend_unnamed_addr)
			f.addr = 0;
	}
	for (q = end; q > p && is_digit(q[-1]); q--)
		;
	if (q < end && q > p && q[-1] == ':') {
		const char *d = q;

		if (parse_dec(&d, end, UINT32_MAX, &line) > 0)
			colon = q - 1;
	}
	if (colon) {
		f.file = ps_str(pp->ps, p, (size_t)(colon - p));
		f.line = (uint32_t)line;
		f.flags |= FRAME_HAS_LINE;
	} else {
		f.file = ps_str(pp->ps, p, (size_t)(end - p));
	}
	if (inlined)
		f.flags |= FRAME_INLINED;
	pp->pending = false;
	builder_push_frame(&pp->b, profile_set_frame(pp->ps, &f));
}

/*
 * Has the thread a comm? perf prints ":TID" for a thread it saw no comm
 * for (its thread__new() names every thread so until a comm arrives).
 */
static bool
comm_known(const char *s, size_t len)
{
	size_t i = 1;

	if (!len)
		return false;
	if (s[0] != ':')
		return true;
	if (i < len && s[i] == '-')
		i++;
	if (i == len)
		return true; /* ":" or ":-" is a name */
	for (; i < len; i++)
		if (!is_digit(s[i]))
			return true;
	return false;
}

/* The process frame of a thread: its comm, "[pid N]" or "[unknown process]". */
static frame_id
process_frame(struct perf_parser *pp, thread_id t)
{
	struct profile_set *ps = pp->ps;

	if (t >= pp->nr_proc_frames) {
		uint32_t n = pp->nr_proc_frames ? pp->nr_proc_frames : 64;

		while (n <= t)
			n *= 2;
		pp->proc_frames = xreallocarray(pp->proc_frames, n, sizeof(*pp->proc_frames));
		for (uint32_t i = pp->nr_proc_frames; i < n; i++)
			pp->proc_frames[i] = FRAME_NONE;
		pp->nr_proc_frames = n;
	}
	if (pp->proc_frames[t] == FRAME_NONE) {
		const struct thread *th = &ps->threads[t];
		const char *comm = ps_get(ps, th->comm);
		struct frame f = { 0 };

		if (comm_known(comm, intern_len(&ps->strings, th->comm))) {
			f.name = th->comm;
		} else {
			strbuf_reset(&pp->name_buf);
			if (th->pid >= 0)
				strbuf_addf(&pp->name_buf, "[pid %lld]", (long long)th->pid);
			else
				strbuf_addstr(&pp->name_buf, "[unknown process]");
			f.name = ps_str(ps, pp->name_buf.buf, pp->name_buf.len);
		}
		f.module = STR_EMPTY;
		f.flags = FRAME_PROCESS;
		pp->proc_frames[t] = profile_set_frame(ps, &f);
	}
	return pp->proc_frames[t];
}

/*
 * A thread's process is its pid, or, where perf printed no pid (perf
 * script's default header is "comm tid"), its comm: threads of one
 * process with comms of their own then read as processes of their own,
 * as in stackcollapse-perf.pl's output.
 */
static bool
same_process(const struct thread *a, const struct thread *b)
{
	if (a->pid >= 0 || b->pid >= 0)
		return a->pid == b->pid;
	return a->comm == b->comm;
}

static frame_id
process_root(void *vpp, thread_id t)
{
	return process_frame(vpp, t);
}

/* Give every sample so far its process frame: a second process has come. */
static void
add_process_roots(struct perf_parser *pp)
{
	pp->proc_state = PROC_MANY;
	builder_add_roots(&pp->b, process_root, pp);
}

/*
 * The open sample is about to end: note its process and, from the second
 * process on, give it its process frame (leaf first: pushed last, it is
 * the outermost).
 */
static void
process_seen(struct perf_parser *pp)
{
	const struct thread *threads = pp->ps->threads;
	thread_id t = pp->b.thread;

	switch (pp->proc_state) {
	case PROC_NONE:
		pp->proc_state = PROC_ONE;
		pp->proc_thread = t;
		pp->proc_below = t == 0;
		return;
	case PROC_ONE:
		/*
		 * Threads mostly come in the order of their ids: the ones
		 * below proc_below were found of the one process already.
		 */
		if (t < pp->proc_below)
			return;
		if (same_process(&threads[t], &threads[pp->proc_thread])) {
			if (t == pp->proc_below)
				pp->proc_below++;
			return;
		}
		add_process_roots(pp);
		break;
	case PROC_MANY:
		break;
	}
	builder_push_frame(&pp->b, process_frame(pp, t));
}

static int
end_sample(struct perf_parser *pp, struct tf_error *err)
{
	flush_pending(pp);
	if (!builder_in_sample(&pp->b))
		return 0;
	if (pp->nr_inl)
		inline_chains(pp);
	if (!builder_full(&pp->b))
		process_seen(pp);
	if (builder_end_sample(&pp->b, BUILDER_LEAF_FIRST, err)) {
		err->line = pp->sample_line;
		return -1;
	}
	pp->samples++;
	return 0;
}

/* Append line to sb with control bytes escaped, cut to about max bytes. */
static void
add_excerpt(struct strbuf *sb, const char *line, size_t len, size_t max)
{
	size_t n = len;

	if (n > max) {
		n = max;
		/* Do not cut a UTF-8 sequence in two. */
		while (n > 0 && ((unsigned char)line[n] & 0xc0) == 0x80)
			n--;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c < 0x20 || c == 0x7f)
			strbuf_addf(sb, "\\x%02x", c);
		else
			strbuf_addch(sb, (char)c);
	}
	if (n < len)
		strbuf_addstr(sb, "...");
}

static void
not_understood(struct perf_parser *pp, const char *line, size_t len, uint64_t lineno)
{
	if (!pp->nr_bad++) {
		pp->first_bad = lineno;
		add_excerpt(&pp->bad_excerpt, line, len, EXCERPT_BYTES);
	}
}

/* The profile of an event (name, len), with the unit its samples carry. */
static struct profile *
event_profile(struct perf_parser *pp, const char *name, size_t len, bool has_period)
{
	enum weight_unit unit = UNIT_SAMPLES;
	const char *colon;
	size_t base;

	if (pp->last_profile && pp->last_event.len == len &&
	    !memcmp(pp->last_event.buf, name, len))
		return pp->last_profile;
	colon = memchr(name, ':', len);
	base = colon ? (size_t)(colon - name) : len;
	if (has_period && pp->opts->weight != WEIGHT_SAMPLES) {
		if (mem_is(name, base, "cpu-clock") || mem_is(name, base, "task-clock"))
			unit = UNIT_NANOSECONDS;
		else
			unit = UNIT_EVENTS;
	}
	pp->last_profile = profile_set_profile(pp->ps, ps_str(pp->ps, name, len), unit);
	strbuf_reset(&pp->last_event);
	strbuf_add(&pp->last_event, name, len);
	return pp->last_profile;
}

static thread_id
header_thread(struct perf_parser *pp, const struct perf_header *h)
{
	struct tcache_entry *e = &pp->tcache[(uint64_t)h->tid % TCACHE_SIZE];
	thread_id id;

	if (e->id != THREAD_NONE && e->tid == h->tid && e->pid == h->pid &&
	    e->comm_len == h->comm_len && !memcmp(e->comm, h->comm, h->comm_len))
		return e->id;
	id = profile_set_thread(pp->ps, h->pid, h->tid, ps_str(pp->ps, h->comm, h->comm_len));
	if (h->comm_len <= TCACHE_COMM) {
		e->pid = h->pid;
		e->tid = h->tid;
		e->id = id;
		e->comm_len = (uint32_t)h->comm_len;
		memcpy(e->comm, h->comm, h->comm_len);
	}
	return id;
}

/* A header line: p is its first non-blank, h its parse. */
static void
header_seen(struct perf_parser *pp, const char *p, const char *end,
	    const struct perf_header *h, uint64_t lineno)
{
	const char *ev = h->event;
	size_t ev_len = h->has_event ? h->event_len : 0;
	bool has_period = h->has_period;
	weight_sum weight = h->has_period ? h->period : 1;
	struct profile *prof;

	if (pp->opts->collapse_compat && !h->has_frame) {
		weight_sum period;
		bool overflow;

		if (perl_header_event(p, end, &ev, &ev_len, &period, &overflow)) {
			if (overflow) {
				not_understood(pp, p, (size_t)(end - p), lineno);
				return;
			}
			has_period = period != 0;
			weight = period ? period : 1;
		} else {
			ev = "";
			ev_len = 0;
			has_period = false;
			weight = 1;
		}
	}
	if (pp->opts->weight == WEIGHT_SAMPLES)
		weight = 1;
	prof = event_profile(pp, ev_len ? ev : "", ev_len, has_period);
	builder_begin_sample_sum(&pp->b, prof, header_thread(pp, h), weight, h->time,
				 h->has_time);
	pp->sample_line = lineno;
	pp->user_frames = 0;
	pp->nr_inl = 0;
	pp->prev_inlined = false;
	if (h->has_frame) {
		pp->header_frame = true;
		frame_seen(pp, &h->frame);
		pp->header_frame = false;
	}
}

/* One line of input. Returns 0, or -1 with err set. */
static int
parse_line(struct perf_parser *pp, const char *line, size_t len, uint64_t lineno,
	   struct tf_error *err)
{
	const char *end = line + len, *p;
	struct lcache_entry *le = NULL;
	uint32_t fill_len = 0;
	struct raw_frame rf;
	struct perf_header h;

	if (len && !is_ws(*line)) {
		if (*line == '#')
			return 0;
		if (builder_in_sample(&pp->b) && unindented_frame(line, end, &rf)) {
			frame_seen(pp, &rf);
			return 0;
		}
		if (end_sample(pp, err))
			return -1;
		if (parse_header(line, end, &h))
			header_seen(pp, line, end, &h, lineno);
		else
			not_understood(pp, line, len, lineno);
		return 0;
	}
	p = skip_ws(line, end);
	if (p == end)
		return end_sample(pp, err);
	if (builder_in_sample(&pp->b)) {
		const char *addr_end, *tail;
		size_t tail_len;
		uint32_t h32;
		bool hit;

		le = lcache_find(pp, p, end, &addr_end, &tail, &tail_len, &h32, &hit);
		if (le && hit) {
			frame_entry_seen(pp, le->entry, p, (size_t)(addr_end - p), le);
			return 0;
		}
		if (le) {
			/* A frame line for sure: fill the entry once it is read. */
			le->len = 0;
			le->hash32 = h32;
			le->seq = ++pp->lcache_seq;
			le->frame[0] = le->frame[1] = FRAME_NONE;
			memcpy(le->key, tail, tail_len);
			fill_len = (uint32_t)tail_len;
		}
	}
	switch (classify_indented(p, end, &rf, &h)) {
	case IND_FRAME:
		if (builder_in_sample(&pp->b)) {
			uint32_t idx = fcache_get(pp, &rf);

			if (le) {
				le->entry = idx;
				le->len = fill_len;
			}
			frame_entry_seen(pp, idx, rf.addr, rf.addr_len, le);
		} else {
			not_understood(pp, line, len, lineno);
		}
		return 0;
	case IND_HEADER:
		if (end_sample(pp, err))
			return -1;
		header_seen(pp, p, end, &h, lineno);
		return 0;
	case IND_OTHER:
		break;
	}
	if (pp->pending)
		srcline_seen(pp, p, end);
	else
		not_understood(pp, line, len, lineno);
	return 0;
}

/*
 * How many of something a parser's set should have room for, having
 * have of them after done of its expect_bytes bytes, with room for alloc:
 * 0 while that lasts for the next RESERVE_AHEAD bytes, else the projected
 * total and a quarter more (the density varies along a file, and unused
 * room is address space only), at most most.
 */
static double
reserve_want(const struct perf_parser *pp, double have, double done, double alloc,
	     double most)
{
	double rate = have / done, soon = have + rate * RESERVE_AHEAD, want;

	if (!have || alloc >= soon)
		return 0;
	want = rate * (double)pp->expect_bytes;
	want += want / 4;
	if (want > most)
		want = most;
	return want < soon ? soon : want;
}

/*
 * Room for the samples and stacks to come, in proportion to the bytes read
 * so far, checked at every progress step: growing the arrays by doubling
 * (the samples) or by half (the stacks) costs a copy into fresh pages each
 * time, and page faults are most of a parser thread's system time. The
 * stacks of a wide profile stop coming (the same ones recur): their room
 * grows at most 16-fold at a time.
 */
static void
reserve_room(struct perf_parser *pp, uint64_t done)
{
	struct profile_set *ps = pp->ps;
	double want;

	for (size_t i = 0; i < ps->nr_profiles; i++) {
		struct profile *p = ps->profiles[i];

		want = reserve_want(pp, (double)p->nr_samples, (double)done,
				    (double)p->alloc_samples, (double)(SIZE_MAX / 64));
		if (pp->b.max_samples && want > (double)pp->b.max_samples)
			want = (double)pp->b.max_samples;
		if (want > (double)p->alloc_samples)
			profile_reserve_samples(p, (size_t)want);
	}
	want = reserve_want(pp, (double)ps->nr_stacks, (double)done, (double)ps->alloc_stacks,
			    16.0 * ps->nr_stacks);
	if (want > (double)ps->alloc_stacks && want < (double)(STACK_BUSY / 2))
		profile_set_reserve_stacks(ps, (uint32_t)(want - ps->nr_stacks));
}

static int
check_progress(struct perf_parser *pp, const struct line_reader *lr, struct tf_error *err)
{
	struct import_progress *prog = pp->opts->progress;

	if (prog) {
		atomic_fetch_add(&prog->bytes_done, lr->bytes - pp->reported);
		if (atomic_load(&prog->cancel))
			return tf_error_set(err, "cancelled");
	}
	pp->reported = lr->bytes;
	if (pp->expect_bytes && lr->bytes)
		reserve_room(pp, lr->bytes);
	if (pp->failed_range && atomic_load(pp->failed_range) < pp->range) {
		pp->stopped = true;
		return tf_error_set(err, "stopped");
	}
	return 0;
}

/* Parse every line of lr. Returns 0, or -1 with err set. */
static int
parse_all(struct perf_parser *pp, struct line_reader *lr, struct tf_error *err)
{
	const char *line;
	size_t len;
	int r;

	while ((r = line_reader_next(lr, &line, &len, err)) > 0) {
		if (lr->bytes - pp->reported >= PROGRESS_STEP && check_progress(pp, lr, err))
			return -1;
		if (parse_line(pp, line, len, lr->lineno, err))
			return -1;
	}
	if (r < 0)
		return -1;
	if (check_progress(pp, lr, err))
		return -1;
	return end_sample(pp, err);
}

/* The verdict at the end: warnings, or the error of an input with no sample. */
static int
finish(struct profile_set *ps, uint64_t samples, uint64_t nr_bad, uint64_t first_bad,
       const char *excerpt, struct tf_error *err)
{
	ps->format = "perf script";
	if (!samples) {
		if (nr_bad)
			return tf_error_set_at(err, NULL, first_bad,
					       "no samples found: %llu line%s not understood, first: %s",
					       (unsigned long long)nr_bad, nr_bad == 1 ? "" : "s",
					       excerpt);
		return tf_error_set_at(err, NULL, 0, "no samples found in perf script input");
	}
	if (nr_bad)
		profile_set_warn(ps, first_bad, "%llu line%s not understood, first: %s",
				 (unsigned long long)nr_bad, nr_bad == 1 ? "" : "s", excerpt);
	return 0;
}

int
perf_parse_lines(struct line_reader *lr, const struct import_options *opts,
		 struct profile_set *ps, struct tf_error *err)
{
	struct perf_parser pp;
	int ret;

	parser_init(&pp, ps, opts);
	if (lr->in && input_seekable(lr->in))
		pp.expect_bytes = lr->in->size;
	ret = parse_all(&pp, lr, err);
	if (!ret)
		ret = finish(ps, pp.samples, pp.nr_bad, pp.first_bad, pp.bad_excerpt.buf, err);
	parser_release(&pp);
	return ret;
}

/* ---------------------------------------------------------- parallel load */

/*
 * Where a range may start: the first line at or after from (but not the
 * one that from falls into) that ends the sample before it, that is a
 * blank line or a header line. Since every line is read on its own, a
 * range starting there parses exactly as the same lines would in one pass.
 * Sets *out to limit if there is none before limit.
 */
static int
find_boundary(struct input *in, uint64_t from, uint64_t limit, uint64_t *out,
	      struct tf_error *err)
{
	const size_t window = 256 * 1024;
	char *buf = xmalloc(window);
	uint64_t pos = from ? from - 1 : 0;
	bool at_start = from == 0;
	int ret = 0;

	*out = limit;
	while (pos < limit) {
		ssize_t n = input_pread(in, buf, window, pos, err);
		size_t i = 0, len;
		bool more;

		if (n < 0) {
			ret = -1;
			break;
		}
		if (n == 0)
			break;
		len = (size_t)n;
		more = len == window;
		while (i < len) {
			const char *nl;

			if (!at_start) {
				nl = memchr(buf + i, '\n', len - i);
				if (!nl) {
					i = len;
					break;
				}
				i = (size_t)(nl - buf) + 1;
				at_start = true;
				continue;
			}
			/* buf + i starts a line: is it whole in the window? */
			nl = memchr(buf + i, '\n', len - i);
			if (!nl && more && i > 0)
				break; /* read again from this line */
			{
				const char *s = buf + i;
				const char *e = nl ? nl : buf + len;
				const char *p = skip_ws(s, e);
				bool whole = nl || !more;
				struct raw_frame rf;
				struct perf_header h;

				if (pos + i >= limit)
					goto done;
				/*
				 * A non-indented line is a header even if cut
				 * off, unless it reads as a frame, which goes on
				 * the sample before it.
				 */
				if ((p == s && p < e && *p != '#' &&
				     !(whole && unindented_frame(p, e, &rf))) ||
				    (whole && p == e) ||
				    (whole && classify_indented(p, e, &rf, &h) == IND_HEADER)) {
					*out = pos + i;
					goto done;
				}
			}
			if (!nl) {
				/* The last line, or one longer than the window: skip it. */
				at_start = false;
				i = len;
				break;
			}
			i = (size_t)(nl - buf) + 1;
		}
		pos += i;
	}
done:
	free(buf);
	return ret;
}

struct perf_job {
	uint64_t start, end;
	struct profile_set *ps;
	struct perf_parser pp;
	struct tf_error err;
	uint64_t lines;
	int ret;
	int index;
	_Atomic bool done;      /* parsed (ret, err, lines and pp are final) */
};

/*
 * A parallel load: the file in ranges, more of them than threads, each
 * taken from a counter by whichever thread is free (ranges equal in bytes
 * are not equal in work), parsed into a set of its own (the first one
 * straight into ps) and merged into ps in file order by whichever thread
 * finds the next one parsed, while the others parse on.
 */
struct perf_load {
	struct input *in;
	const struct import_options *opts;
	struct profile_set *ps;
	struct perf_job *jobs;
	int njobs;
	bool loose;             /* merge the ranges' stacks loose (import.h) */
	/*
	 * Nobody rewrites the set after the load: loose is decided at the
	 * first merge (deep_stacks()) and the load interns them at its end.
	 */
	bool loose_ours;
	_Atomic int next_job;   /* the next range to parse */
	_Atomic int failed_range; /* the lowest range that failed */

	/* What follows is written under merge_lock only. */
	pthread_mutex_t merge_lock;
	_Atomic int merged;     /* ranges merged into ps so far, in file order */
	/*
	 * Process roots (several_processes()): whether the ranges hold
	 * samples of several processes, once decided. Until then, a range
	 * of one process may still have to get process frames: no range is
	 * merged before the decision, which the last range's end makes at
	 * the latest.
	 */
	_Atomic bool decided;
	bool several;
	uint64_t samples, nr_bad, first_bad, line_offset;
	struct strbuf excerpt;
	_Atomic int merge_ret;  /* a merge failed: merge_err says why */
	struct tf_error merge_err;
};

/* same_process() for threads of two sets. */
static bool
same_process_between(const struct profile_set *a, thread_id ta, const struct profile_set *b,
		     thread_id tb)
{
	const struct thread *x = &a->threads[ta], *y = &b->threads[tb];
	size_t len = intern_len(&a->strings, x->comm);

	if (x->pid >= 0 || y->pid >= 0)
		return x->pid == y->pid;
	return len == intern_len(&b->strings, y->comm) &&
	       !memcmp(ps_get(a, x->comm), ps_get(b, y->comm), len);
}

/*
 * Whether the ranges [0, n), none merged yet, hold samples of several
 * processes (every event together): a range that saw one process has no
 * process frames from its parser, so if another range saw another
 * process (or several), it needs them.
 */
static bool
several_processes(const struct perf_job *jobs, int n)
{
	const struct perf_parser *first = NULL;

	for (int i = 0; i < n; i++) {
		const struct perf_parser *pp = &jobs[i].pp;

		if (pp->proc_state == PROC_MANY)
			return true;
		if (pp->proc_state == PROC_ONE && !first)
			first = pp;
		else if (pp->proc_state == PROC_ONE &&
			 !same_process_between(first->ps, first->proc_thread, pp->ps,
					       pp->proc_thread))
			return true;
	}
	return false;
}

/*
 * Whether a range made more stacks than samples: deep stacks that are
 * mostly distinct (a dwarf call graph, with inline frames). Interned once
 * in its own set and again in the merged one, they cost more than a
 * rewrite of the whole set at the end: 0.76-0.94 s against 0.50-0.62 s
 * for report --no-symbols on a 152 MB dwarf recording. A system-wide
 * profile (22 k stacks for 150 k samples a range) is the other way round.
 */
static bool
deep_stacks(const struct perf_job *job)
{
	return job->ps->nr_stacks > job->pp.samples;
}

/*
 * Merge the next range into ps if it can be merged now; under merge_lock.
 * Returns false when it cannot: not parsed yet, a range failed, or the
 * process roots are not decided yet (they are once every range is parsed).
 */
static bool
merge_next(struct perf_load *ld)
{
	int i = atomic_load(&ld->merged);
	struct perf_job *job;

	if (i >= ld->njobs || ld->merge_ret || atomic_load(&ld->failed_range) != INT_MAX)
		return false;
	job = &ld->jobs[i];
	if (!atomic_load_explicit(&job->done, memory_order_acquire))
		return false;
	if (!atomic_load(&ld->decided)) {
		/* Undecided, none is merged yet: look at the ranges parsed so far. */
		int parsed = i;

		while (parsed < ld->njobs &&
		       atomic_load_explicit(&ld->jobs[parsed].done, memory_order_acquire))
			parsed++;
		if (several_processes(ld->jobs, parsed))
			ld->several = true;
		else if (parsed < ld->njobs)
			return false;
		atomic_store(&ld->decided, true);
	}
	if (ld->several && job->pp.proc_state == PROC_ONE)
		add_process_roots(&job->pp);
	if (i == 1 && ld->loose_ours)
		ld->loose = deep_stacks(job);
	if (i && ld->loose)
		ld->merge_ret = profile_set_merge_loose(ld->ps, job->ps, ld->line_offset,
							&ld->merge_err);
	else if (i)
		ld->merge_ret = profile_set_merge(ld->ps, job->ps, ld->line_offset,
						  &ld->merge_err);
	if (ld->merge_ret)
		return false;
	ld->samples += job->pp.samples;
	if (job->pp.nr_bad && !ld->nr_bad) {
		ld->first_bad = job->pp.first_bad + ld->line_offset;
		strbuf_add(&ld->excerpt, job->pp.bad_excerpt.buf, job->pp.bad_excerpt.len);
	}
	ld->nr_bad += job->pp.nr_bad;
	ld->line_offset += job->lines;
	parser_release(&job->pp);
	if (i) {
		profile_set_free(job->ps);
		job->ps = NULL;
	}
	atomic_store(&ld->merged, i + 1);
	return true;
}

/*
 * Merge what can be merged, unless another thread is at it. A range
 * parsed while that thread lets go is merged by the next one to come,
 * or at the end.
 */
static void
merge_ready(struct perf_load *ld)
{
	while (pthread_mutex_trylock(&ld->merge_lock) == 0) {
		int i;

		while (merge_next(ld))
			;
		pthread_mutex_unlock(&ld->merge_lock);
		/* Parsed while this thread had the lock, and not merged: again. */
		i = atomic_load(&ld->merged);
		if (i >= ld->njobs || !atomic_load(&ld->decided) || atomic_load(&ld->merge_ret) ||
		    !atomic_load_explicit(&ld->jobs[i].done, memory_order_acquire) ||
		    atomic_load(&ld->failed_range) != INT_MAX)
			break;
	}
}

static void
job_parse(struct perf_load *ld, struct perf_job *job)
{
	struct line_reader lr;

	job->ps = job->index ? profile_set_new() : ld->ps;
	tf_error_init(&job->err);
	parser_init(&job->pp, job->ps, ld->opts);
	job->pp.range = job->index;
	job->pp.failed_range = &ld->failed_range;
	job->pp.expect_bytes = job->index ? job->end - job->start : ld->in->size;
	line_reader_init_range(&lr, ld->in, job->start, job->end);
	if (atomic_load(&ld->failed_range) < job->index) {
		/* An earlier range failed: this one's lines are not needed. */
		job->pp.stopped = true;
		job->ret = tf_error_set(&job->err, "stopped");
	} else {
		job->ret = parse_all(&job->pp, &lr, &job->err);
	}
	job->lines = lr.lineno;
	line_reader_release(&lr);
	parser_drop_caches(&job->pp);
	if (job->ret && !job->pp.stopped) {
		int cur = atomic_load(&ld->failed_range);

		while (cur > job->index &&
		       !atomic_compare_exchange_weak(&ld->failed_range, &cur, job->index))
			;
	}
	atomic_store_explicit(&job->done, true, memory_order_release);
}

static void *
load_worker(void *arg)
{
	struct perf_load *ld = arg;
	int i;

	xheap_huge_pages();
	while ((i = atomic_fetch_add(&ld->next_job, 1)) < ld->njobs) {
		job_parse(ld, &ld->jobs[i]);
		merge_ready(ld);
	}
	return NULL;
}

static int
thread_count(const struct import_options *opts, uint64_t size)
{
	long n = opts->threads;

	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	if ((uint64_t)n > size / RANGE_MIN_BYTES)
		n = (long)(size / RANGE_MIN_BYTES);
	return n < 1 ? 1 : (int)n;
}

/*
 * How many ranges nthreads parse: as many each, up to RANGES_PER_THREAD,
 * none much under RANGE_BYTES (or opts->range_bytes); one each for a
 * smaller file.
 */
static int
range_count(const struct import_options *opts, int nthreads, uint64_t size)
{
	uint64_t least = opts->range_bytes ? opts->range_bytes : RANGE_BYTES;
	uint64_t per_thread = size / least / (uint64_t)nthreads;

	if (per_thread > RANGES_PER_THREAD)
		per_thread = RANGES_PER_THREAD;
	return per_thread > 1 ? (int)per_thread * nthreads : nthreads;
}

/*
 * Split the file into ranges that start at sample boundaries, parse them
 * on nthreads threads (this one too), each into its own set (the first
 * straight into ps), and merge the sets into ps in file order, their
 * stacks loose when the symbols will be resolved (import.h) or when they
 * are deep (deep_stacks()): struct perf_load.
 */
static int
load_parallel(struct input *in, const struct import_options *opts, struct profile_set *ps,
	      int nthreads, struct tf_error *err)
{
	uint64_t size = in->size, start = 0;
	int nranges = range_count(opts, nthreads, size);
	struct perf_load ld = {
		.in = in,
		.opts = opts,
		.ps = ps,
		.jobs = xcalloc((size_t)nranges, sizeof(*ld.jobs)),
		/*
		 * import_file() rewrites every stack when it resolves the
		 * symbols: the ranges' stacks are interned then, once, rather
		 * than here too.
		 */
		.loose = opts->symbols == SYMBOLS_RESOLVE && !opts->symbols_later,
		.loose_ours = opts->symbols != SYMBOLS_RESOLVE || opts->symbols_later,
	};
	pthread_t *threads = xcalloc((size_t)nthreads, sizeof(*threads));
	bool *started = xcalloc((size_t)nthreads, sizeof(*started));
	int failed, ret = 0;

	for (int k = 1; k <= nranges; k++) {
		uint64_t b = size;

		if (k < nranges) {
			uint64_t nominal = size / (uint64_t)nranges * (uint64_t)k;
			uint64_t limit = size / (uint64_t)nranges * (uint64_t)(k + 1);

			if (nominal < start)
				nominal = start;
			if (find_boundary(in, nominal, limit, &b, err)) {
				free(ld.jobs);
				free(threads);
				free(started);
				return -1;
			}
			if (b >= limit)
				continue; /* none here: the range runs on */
		}
		if (b <= start)
			continue;
		ld.jobs[ld.njobs].start = start;
		ld.jobs[ld.njobs].end = b;
		ld.jobs[ld.njobs].index = ld.njobs;
		ld.njobs++;
		start = b;
	}
	atomic_init(&ld.next_job, 0);
	atomic_init(&ld.failed_range, INT_MAX);
	atomic_init(&ld.merged, 0);
	atomic_init(&ld.merge_ret, 0);
	atomic_init(&ld.decided, false);
	pthread_mutex_init(&ld.merge_lock, NULL);
	strbuf_init(&ld.excerpt, 0);
	tf_error_init(&ld.merge_err);
	if (nthreads > ld.njobs)
		nthreads = ld.njobs;
	for (int i = 1; i < nthreads; i++)
		started[i] = pthread_create(&threads[i], NULL, load_worker, &ld) == 0;
	load_worker(&ld);
	for (int i = 1; i < nthreads; i++)
		if (started[i])
			pthread_join(threads[i], NULL);
	/* What no thread got to: the process roots are decided by now. */
	while (merge_next(&ld))
		;

	/*
	 * The first failure in file order is the one to report: a range only
	 * stops early after an earlier one failed.
	 */
	failed = atomic_load(&ld.failed_range);
	if (failed != INT_MAX) {
		uint64_t offset = 0;

		for (int i = 0; i < failed; i++)
			offset += ld.jobs[i].lines;
		tf_error_move(err, &ld.jobs[failed].err);
		tf_error_shift_line(err, offset);
		ret = -1;
	} else if (ld.merge_ret) {
		tf_error_move(err, &ld.merge_err);
		ret = -1;
	} else {
		ret = finish(ps, ld.samples, ld.nr_bad, ld.first_bad, ld.excerpt.buf, err);
		if (ld.loose_ours)
			profile_set_intern_loose(ps);
	}
	for (int i = atomic_load(&ld.merged); i < ld.njobs; i++) {
		struct perf_job *job = &ld.jobs[i];

		if (!job->ps)
			continue; /* never started */
		parser_release(&job->pp);
		if (i)
			profile_set_free(job->ps);
	}
	for (int i = 0; i < ld.njobs; i++)
		tf_error_release(&ld.jobs[i].err);
	tf_error_release(&ld.merge_err);
	strbuf_release(&ld.excerpt);
	pthread_mutex_destroy(&ld.merge_lock);
	free(ld.jobs);
	free(threads);
	free(started);
	return ret;
}

static int
perf_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	  struct tf_error *err)
{
	struct line_reader lr;
	int ret;

	/*
	 * Only this importer's sets: perf.data's reads the same text through
	 * perf_parse_lines() and is collapsed as any other format.
	 */
	ps->perf_script = true;
	/* With --max-samples, the first samples in the file, read in order. */
	if (!opts->max_samples && input_seekable(in) && in->size >= PARALLEL_MIN_BYTES) {
		int n = thread_count(opts, in->size);

		if (n > 1)
			return load_parallel(in, opts, ps, n, err);
	}
	line_reader_init(&lr, in);
	ret = perf_parse_lines(&lr, opts, ps, err);
	line_reader_release(&lr);
	return ret;
}

/* ------------------------------------------------------------------ probe */

/*
 * Sure when a header is followed by an indented frame line; fairly sure
 * for a run of headers with nothing else (callchain-less output); never
 * for binary data.
 */
static int
perf_probe(const char *data, size_t len)
{
	const char *p = data, *end = data + len;
	unsigned headers = 0, header_frame = 0, other = 0;
	bool after_header = false, after_frame = false, perf_comment = false;

	if (!len || memchr(data, '\0', len))
		return 0;
	for (int n = 0; p < end && n < 400; n++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *s;
		struct raw_frame rf;
		struct perf_header h;
		bool header = false, frame = false;

		s = skip_ws(p, e);
		if (s == e) {
			after_header = false;
		} else if (*p == '#') {
			if (text_starts(p, (size_t)(e - p), "# perf version") ||
			    text_starts(p, (size_t)(e - p), "# cmdline") ||
			    text_starts(p, (size_t)(e - p), "# ========"))
				perf_comment = true;
		} else if (s == p) {
			header = parse_strong_header(p, e, &h);
			/* Old perf's callchains without indent. */
			if (!header && (after_header || after_frame) &&
			    unindented_frame(p, e, &rf)) {
				if (after_header)
					header_frame++;
				frame = true;
			}
		} else {
			switch (classify_indented(s, e, &rf, &h)) {
			case IND_HEADER:
				header = true;
				break;
			case IND_FRAME:
				if (after_header)
					header_frame++;
				frame = true;
				break;
			case IND_OTHER:
				/* A srcline after a frame, or noise. */
				if (!after_frame && nl)
					other++;
				break;
			}
		}
		if (header)
			headers++;
		else if (s != e && s == p && *p != '#' && nl && !frame)
			other++; /* a cut-off last line proves nothing */
		after_header = header;
		after_frame = frame || (header && h.has_frame);
		if (!nl)
			break;
		p = nl + 1;
	}
	if (header_frame && other <= headers / 4)
		return 95;
	if (headers >= 3 && !other)
		return 90;
	if (headers && !other)
		return 70;
	if (headers && other <= headers)
		return 40;
	if (!headers && !other && perf_comment)
		return 20;
	return 0;
}

const struct importer importer_perf = {
	.name = "perf",
	.description = "perf script",
	.probe = perf_probe,
	.load = perf_load,
};
