#include "config.h"

#include "tflame/import.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/input.h"
#include "tflame/lines.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * Folded stacks, as FlameGraph's stackcollapse-*.pl and inferno write them:
 *
 *	root;caller;leaf 12
 *	root;caller;leaf 3 5      (differential: before, after)
 *
 * The count is the last whitespace-separated token, so frames may hold
 * spaces. Input may be UTF-8 (with or without a byte-order mark) or UTF-16
 * with a byte-order mark, which is transcoded to UTF-8 as it streams in.
 */

#define FOLDED_FORMAT "folded stacks"
/* More decimals than this in a count are rounded off, with a warning. */
#define MAX_DECIMALS 9
/* Bytes of a bad line quoted in the warning. */
#define EXCERPT_BYTES 40
/* Progress is published after this many bytes, to keep atomics rare. */
#define PROGRESS_STEP (1024 * 1024)
/* Bytes of UTF-16 read from the input at a time. */
#define UTF16_BLOCK (256 * 1024)

/* ---------------------------------------------------------------- UTF-16 */

/*
 * Decode one code point from the UTF-16 at p (avail bytes). Returns the
 * bytes consumed, or 0 if more input is needed to decide (never when
 * at_end, unless avail is 0). Unpaired surrogates and a final odd byte
 * decode as U+FFFD, so broken input still makes progress.
 */
static size_t
utf16_next(const unsigned char *p, size_t avail, bool big_endian, bool at_end,
	   uint32_t *cp)
{
	uint32_t u, v;

	if (avail < 2) {
		if (avail && at_end) {
			*cp = 0xfffd;
			return avail;
		}
		return 0;
	}
	u = big_endian ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
	if (u < 0xd800 || u > 0xdfff) {
		*cp = u;
		return 2;
	}
	if (u >= 0xdc00) {
		*cp = 0xfffd; /* a low surrogate with no high one before it */
		return 2;
	}
	if (avail < 4) {
		if (!at_end)
			return 0;
		*cp = 0xfffd;
		return 2;
	}
	v = big_endian ? (uint32_t)p[2] << 8 | p[3] : (uint32_t)p[3] << 8 | p[2];
	if (v < 0xdc00 || v > 0xdfff) {
		*cp = 0xfffd; /* v is decoded on its own next time */
		return 2;
	}
	*cp = 0x10000 + ((u - 0xd800) << 10) + (v - 0xdc00);
	return 4;
}

/* Encode cp (at most U+10FFFF, no surrogates) as UTF-8; returns the length. */
static size_t
utf8_encode(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A line source that reads UTF-16 from an input and hands out UTF-8. */
struct utf16_source {
	struct input *in;
	bool big_endian;
	unsigned char *buf;  /* UTF-16 bytes read, not yet decoded */
	size_t pos, len;
	bool eof;
};

/*
 * The line_source_fn. The line reader always offers a large buffer, so a
 * code point that does not fit simply waits for the next call.
 */
static ssize_t
utf16_read(void *arg, char *out, size_t len, struct tf_error *err)
{
	struct utf16_source *s = arg;
	size_t o = 0;

	if (len < 4)
		BUG("utf16_read() needs room for one UTF-8 sequence");
	while (len - o >= 4) {
		uint32_t cp;
		size_t used;

		used = utf16_next(s->buf + s->pos, s->len - s->pos, s->big_endian, s->eof, &cp);
		if (!used) {
			ssize_t r;

			/* Hand out what is decoded rather than block on a pipe. */
			if (s->eof || o)
				break;
			memmove(s->buf, s->buf + s->pos, s->len - s->pos);
			s->len -= s->pos;
			s->pos = 0;
			r = input_read(s->in, s->buf + s->len, UTF16_BLOCK - s->len, err);
			if (r < 0)
				return -1;
			if (r == 0)
				s->eof = true;
			s->len += (size_t)r;
			continue;
		}
		s->pos += used;
		o += utf8_encode(cp, out + o);
	}
	return (ssize_t)o;
}

/* ---------------------------------------------------------------- parsing */

static inline bool
is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * A count as written: integer part, and the fraction without trailing
 * zeros, rounded to MAX_DECIMALS (rounded says it was). The integer part
 * may pass 64 bits: such a count is added as several samples (builder.h:
 * builder_begin_sample_sum()).
 */
struct count {
	weight_sum ip;
	uint64_t frac;
	unsigned decimals;
	bool rounded;
};

/* Parse a count token; returns NULL or why it is not a count. */
static const char *
parse_count(const char *s, size_t len, struct count *c)
{
	size_t i = 0, digits = 0, fdigits, keep;

	c->ip = c->frac = 0;
	c->decimals = 0;
	c->rounded = false;
	if (len && s[0] == '-')
		return "negative count";
	if (!len || ((s[0] < '0' || s[0] > '9') && s[0] != '.'))
		return "missing count";
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (c->ip > (BUILDER_MAX_WEIGHT - d) / 10)
			return "count too large";
		c->ip = c->ip * 10 + d;
	}
	if (i < len && s[i] == '.') {
		size_t start = ++i, end;
		uint64_t whole = 1;

		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		digits += i - start;
		/* 1.50 is 1.5: trailing zeros need no scale. */
		for (end = i; end > start && s[end - 1] == '0'; end--)
			;
		fdigits = end - start;
		keep = fdigits > MAX_DECIMALS ? MAX_DECIMALS : fdigits;
		for (size_t k = start; k < start + keep; k++) {
			c->frac = c->frac * 10 + (uint64_t)(s[k] - '0');
			whole *= 10;
		}
		/* More decimals than a weight keeps: rounded, half up. */
		if (fdigits > keep) {
			c->rounded = true;
			if (s[start + keep] >= '5' && ++c->frac == whole) {
				c->frac = 0;
				if (c->ip >= BUILDER_MAX_WEIGHT)
					return "count too large";
				c->ip++;
			}
			while (keep && c->frac % 10 == 0) {
				c->frac /= 10;
				keep--;
			}
		}
		c->decimals = (unsigned)keep;
	}
	if (i != len || !digits)
		return "bad count";
	return NULL;
}

/* Where the token that ends at end (exclusive) starts. */
static size_t
token_start(const char *line, size_t end)
{
	while (end > 0 && !is_space((unsigned char)line[end - 1]))
		end--;
	return end;
}

static size_t
skip_space_back(const char *line, size_t end)
{
	while (end > 0 && is_space((unsigned char)line[end - 1]))
		end--;
	return end;
}

enum folded_mode {
	MODE_UNKNOWN,
	MODE_SINGLE, /* one count: profile "" */
	MODE_DIFF,   /* two counts: profiles "before" and "after" */
};

struct name_frame {
	str_id name;
	frame_id frame;
};

struct folded {
	struct profile_set *ps;
	const struct import_options *opts;
	struct builder b;
	thread_id thread;
	enum folded_mode mode;
	struct profile *prof[2];

	/* str_id of a frame name -> frame_id + 1 (0: not seen) */
	uint32_t *frame_of_str;
	size_t alloc_fos;
	/*
	 * The frames of the previous line, by depth: sorted input repeats
	 * long prefixes, and comparing bytes with the interned name is
	 * cheaper than hashing them again.
	 */
	struct name_frame *prev;
	size_t nr_prev, alloc_prev;

	uint64_t good, bad, first_bad;
	uint64_t rounded, first_rounded; /* counts rounded (round_count()) */
	unsigned max_decimals[2];        /* what each profile's weights can take */
	struct strbuf first_reason; /* "reason: \"excerpt\"" of the first bad line */
};

static uint32_t
name_flags(const char *s, size_t len)
{
	if (len < 4 || s[len - 4] != '_' || s[len - 3] != '[' || s[len - 1] != ']')
		return 0;
	switch (s[len - 2]) {
	case 'k':
		return FRAME_KERNEL;
	case 'j':
		return FRAME_JIT;
	case 'i':
		return FRAME_INLINED;
	}
	return 0;
}

static frame_id
name_frame(struct folded *f, const char *s, size_t len, str_id *name_out)
{
	str_id name = ps_str(f->ps, s, len);
	struct frame fr;
	frame_id id;

	*name_out = name;
	if (name < f->alloc_fos && f->frame_of_str[name])
		return f->frame_of_str[name] - 1;
	if (name >= f->alloc_fos) {
		size_t n = f->alloc_fos ? f->alloc_fos * 2 : 1024;

		while (n <= name)
			n *= 2;
		f->frame_of_str = xreallocarray(f->frame_of_str, n, sizeof(*f->frame_of_str));
		memset(f->frame_of_str + f->alloc_fos, 0,
		       (n - f->alloc_fos) * sizeof(*f->frame_of_str));
		f->alloc_fos = n;
	}
	memset(&fr, 0, sizeof(fr));
	fr.name = name;
	fr.module = STR_EMPTY;
	fr.file = STR_EMPTY;
	fr.flags = name_flags(s, len);
	id = profile_set_frame(f->ps, &fr);
	f->frame_of_str[name] = id + 1;
	return id;
}

/*
 * Quote up to EXCERPT_BYTES of line for a message, escaping control
 * characters and bytes that are not UTF-8, so the message is safe to show
 * on a terminal.
 */
static void
add_excerpt(struct strbuf *sb, const char *line, size_t len)
{
	const unsigned char *p = (const unsigned char *)line;
	size_t i = 0;

	strbuf_addch(sb, '"');
	while (i < len && i < EXCERPT_BYTES) {
		unsigned char c = p[i];
		size_t n = 0;

		if (c >= 0x20 && c < 0x7f) {
			if (c == '"' || c == '\\')
				strbuf_addch(sb, '\\');
			strbuf_addch(sb, (char)c);
			i++;
			continue;
		}
		if (c == '\t') {
			strbuf_addstr(sb, "\\t");
			i++;
			continue;
		}
		/* A whole UTF-8 sequence that is not a C1 control passes through. */
		if (c >= 0xc2 && c <= 0xdf)
			n = 2;
		else if (c >= 0xe0 && c <= 0xef)
			n = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 4;
		if (n && i + n <= len && !(c == 0xc2 && p[i + 1] < 0xa0)) {
			size_t k;

			for (k = 1; k < n && (p[i + k] & 0xc0) == 0x80; k++)
				;
			if (k == n) {
				strbuf_add(sb, p + i, n);
				i += n;
				continue;
			}
		}
		strbuf_addf(sb, "\\x%02x", c);
		i++;
	}
	strbuf_addch(sb, '"');
	if (i < len)
		strbuf_addstr(sb, "...");
}

static void
bad_line(struct folded *f, uint64_t lineno, const char *reason, const char *line,
	 size_t len)
{
	if (!f->bad++) {
		f->first_bad = lineno;
		strbuf_addf(&f->first_reason, "%s: ", reason);
		add_excerpt(&f->first_reason, line, len);
	}
}

/*
 * Whether count c, scaled to the decimals of p (and of c), is at most
 * BUILDER_MAX_WEIGHT.
 */
static bool
count_fits(const struct profile *p, const struct count *c)
{
	unsigned d = c->decimals > p->weight_decimals ? c->decimals : p->weight_decimals;
	uint64_t mul = 1, fmul = 1;

	for (unsigned i = 0; i < d; i++)
		mul *= 10;
	for (unsigned i = c->decimals; i < d; i++)
		fmul *= 10;
	/* frac * fmul < mul, so only the integer part can overflow. */
	return c->ip <= (BUILDER_MAX_WEIGHT - c->frac * fmul) / mul;
}

/* Round c to d decimals (fewer than it has), half up. */
static void
round_count(struct count *c, unsigned d)
{
	uint64_t div = 1, whole = 1, rem;

	for (unsigned i = d; i < c->decimals; i++)
		div *= 10;
	for (unsigned i = 0; i < d; i++)
		whole *= 10;
	rem = c->frac % div;
	c->frac /= div;
	if (rem >= div - rem && ++c->frac == whole) {
		c->frac = 0;
		c->ip++;
	}
	c->decimals = d;
	while (c->decimals && c->frac % 10 == 0) {
		c->frac /= 10;
		c->decimals--;
	}
	c->rounded = true;
}

/*
 * The weight of count c (count_fits() must hold) in p, raising p's decimals
 * if c has more. When p's weights cannot take them (a sample would pass 64
 * bits), c is rounded to p's decimals instead, and *max_decimals lowered
 * to them for the counts to come.
 */
static weight_sum
count_weight(struct profile *p, struct count *c, unsigned *max_decimals)
{
	uint64_t mul = 1, fmul = 1;

	if (c->decimals > p->weight_decimals && profile_set_decimals(p, c->decimals, NULL)) {
		*max_decimals = p->weight_decimals;
		round_count(c, p->weight_decimals);
	}
	for (unsigned i = 0; i < p->weight_decimals; i++)
		mul *= 10;
	for (unsigned i = c->decimals; i < p->weight_decimals; i++)
		fmul *= 10;
	return c->ip * mul + c->frac * fmul;
}

static struct profile *
make_profile(struct folded *f, const char *name)
{
	enum weight_unit unit = f->opts->weight == WEIGHT_SAMPLES ? UNIT_SAMPLES : UNIT_NONE;

	return profile_set_profile(f->ps, ps_str(f->ps, name, strlen(name)), unit);
}

/*
 * Split frames_end bytes of line at ';' into f->prev. Returns the depth.
 * An empty name is a frame like any other (a;;b is three frames, a;b;
 * three too), as flamegraph.pl draws it and collapse writes it back, so
 * that collapse gives a folded file back unchanged.
 */
static size_t
split_frames(struct folded *f, const char *line, size_t frames_end)
{
	const struct intern *strs = &f->ps->strings;
	size_t depth = 0;

	for (size_t pos = 0; pos <= frames_end;) {
		const char *s = line + pos;
		const char *semi = memchr(s, ';', frames_end - pos);
		size_t n = semi ? (size_t)(semi - s) : frames_end - pos;

		pos += n + 1;
		ALLOC_GROW(f->prev, depth, f->alloc_prev);
		if (depth < f->nr_prev) {
			str_id old = f->prev[depth].name;

			if (intern_len(strs, old) == n && !memcmp(intern_get(strs, old), s, n)) {
				depth++;
				continue;
			}
		}
		f->prev[depth].frame = name_frame(f, s, n, &f->prev[depth].name);
		depth++;
	}
	f->nr_prev = depth;
	return depth;
}

/* Parse one line. Returns 0 (also for a bad or blank line), or -1 with err set. */
static int
parse_line(struct folded *f, const char *line, size_t len, uint64_t lineno,
	   struct tf_error *err)
{
	size_t end, tok, rest, tok2, frames_end, depth;
	enum folded_mode mode;
	struct count c[2];
	const char *why;
	bool two = false;
	int nprof;

	end = skip_space_back(line, len);
	if (!end)
		return 0; /* blank */
	tok = token_start(line, end);
	rest = skip_space_back(line, tok);
	why = parse_count(line + tok, end - tok, &c[1]);
	if (why || !rest) {
		bad_line(f, lineno, why ? why : "no frames", line, len);
		return 0;
	}
	tok2 = token_start(line, rest);
	if (tok2 && !parse_count(line + tok2, rest - tok2, &c[0]) &&
	    skip_space_back(line, tok2) > 0)
		two = true;

	/* The first good line says whether the file is differential. */
	mode = f->mode != MODE_UNKNOWN ? f->mode : two ? MODE_DIFF : MODE_SINGLE;
	if (mode == MODE_DIFF) {
		if (!two) {
			bad_line(f, lineno, "missing second count", line, len);
			return 0;
		}
		frames_end = skip_space_back(line, tok2);
		nprof = 2;
	} else {
		/* A number before the count is part of the last frame's name. */
		frames_end = rest;
		c[0] = c[1];
		nprof = 1;
	}
	depth = split_frames(f, line, frames_end);
	if (!depth) {
		bad_line(f, lineno, "no frames", line, len);
		return 0;
	}
	if (f->mode == MODE_UNKNOWN) {
		f->mode = mode;
		if (mode == MODE_DIFF) {
			f->prof[0] = make_profile(f, "before");
			f->prof[1] = make_profile(f, "after");
		} else {
			f->prof[0] = make_profile(f, "");
		}
	}

	/* A differential line goes into both profiles or neither. */
	for (int i = 0; i < nprof && f->opts->weight != WEIGHT_SAMPLES; i++) {
		if (c[i].decimals > f->max_decimals[i])
			round_count(&c[i], f->max_decimals[i]);
		if (!count_fits(f->prof[i], &c[i])) {
			bad_line(f, lineno, "count too large", line, len);
			return 0;
		}
	}
	for (int i = 0; i < nprof; i++) {
		weight_sum w = 1;

		if (f->opts->weight != WEIGHT_SAMPLES)
			w = count_weight(f->prof[i], &c[i], &f->max_decimals[i]);
		if (c[i].rounded && f->opts->weight != WEIGHT_SAMPLES && !f->rounded++)
			f->first_rounded = lineno;
		builder_begin_sample_sum(&f->b, f->prof[i], f->thread, w, 0, false);
		for (size_t k = 0; k < depth; k++)
			builder_push_frame(&f->b, f->prev[k].frame);
		if (builder_end_sample(&f->b, BUILDER_ROOT_FIRST, err))
			goto fail;
	}
	f->good++;
	return 0;

fail:
	if (err)
		err->line = lineno;
	return -1;
}

static void
publish_progress(struct import_progress *pr, uint64_t *reported, uint64_t bytes)
{
	atomic_fetch_add(&pr->bytes_done, bytes - *reported);
	*reported = bytes;
}

int
folded_parse_lines(struct line_reader *lr, const struct import_options *opts,
		   struct profile_set *ps, struct tf_error *err)
{
	static const struct import_options defaults;
	struct import_progress *pr;
	struct folded f;
	uint64_t reported = lr->bytes;
	const char *line;
	size_t len;
	int ret = 0, r;

	if (!opts)
		opts = &defaults;
	pr = opts->progress;
	memset(&f, 0, sizeof(f));
	f.ps = ps;
	f.opts = opts;
	builder_init(&f.b, ps);
	f.b.max_samples = opts->max_samples;
	strbuf_init(&f.first_reason, 0);
	f.thread = profile_set_thread(ps, -1, -1, STR_EMPTY);
	f.max_decimals[0] = f.max_decimals[1] = MAX_DECIMALS;
	if (!ps->format)
		ps->format = FOLDED_FORMAT;

	while ((r = line_reader_next(lr, &line, &len, err)) > 0) {
		/* A UTF-8 byte-order mark is not part of the first frame. */
		if (lr->lineno == 1 && len >= 3 && !memcmp(line, "\xef\xbb\xbf", 3)) {
			line += 3;
			len -= 3;
		}
		if (parse_line(&f, line, len, lr->lineno, err)) {
			ret = -1;
			break;
		}
		/* --max-samples: the rest of the file would be dropped. */
		if (builder_stopped(&f.b))
			break;
		if (pr && lr->bytes - reported >= PROGRESS_STEP) {
			publish_progress(pr, &reported, lr->bytes);
			if (atomic_load(&pr->cancel)) {
				ret = tf_error_set(err, "cancelled");
				break;
			}
		}
	}
	if (r < 0)
		ret = -1;
	if (pr)
		publish_progress(pr, &reported, lr->bytes);

	if (!ret && !f.good) {
		if (f.bad)
			ret = tf_error_set_at(err, NULL, f.first_bad,
					      "no valid folded stack line (%llu bad), first: %s",
					      (unsigned long long)f.bad, f.first_reason.buf);
		else
			ret = tf_error_set(err, "no samples found");
	} else if (!ret && f.bad) {
		profile_set_warn(ps, f.first_bad, "%llu bad line%s skipped, first: %s",
				 (unsigned long long)f.bad, f.bad == 1 ? "" : "s",
				 f.first_reason.buf);
	}
	if (!ret && f.rounded)
		profile_set_warn(ps, f.first_rounded,
				 "%llu count%s rounded to %u decimals, the most %s",
				 (unsigned long long)f.rounded, f.rounded == 1 ? "" : "s",
				 f.max_decimals[0] < f.max_decimals[1] ? f.max_decimals[0]
								       : f.max_decimals[1],
				 f.max_decimals[0] == MAX_DECIMALS && f.max_decimals[1] == MAX_DECIMALS
					 ? "a weight keeps"
					 : "the profile's weights can take");


	builder_release(&f.b);
	strbuf_release(&f.first_reason);
	free(f.frame_of_str);
	free(f.prev);
	return ret;
}

static int
folded_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	    struct tf_error *err)
{
	struct utf16_source src;
	struct line_reader lr;
	const unsigned char *p;
	const char *data;
	size_t len;
	int ret;

	if (input_peek(in, 2, &data, &len, err))
		return -1;
	p = (const unsigned char *)data;
	memset(&src, 0, sizeof(src));
	if (len >= 2 && ((p[0] == 0xff && p[1] == 0xfe) || (p[0] == 0xfe && p[1] == 0xff))) {
		char bom[2];
		size_t got = 0;

		src.big_endian = p[0] == 0xfe;
		while (got < 2) {
			ssize_t n = input_read(in, bom + got, 2 - got, err);

			if (n < 0)
				return -1;
			if (n == 0)
				BUG("input ended inside two peeked bytes");
			got += (size_t)n;
		}
		src.in = in;
		src.buf = xmalloc(UTF16_BLOCK);
		line_reader_init_fn(&lr, utf16_read, &src);
	} else {
		line_reader_init(&lr, in);
	}
	ret = folded_parse_lines(&lr, opts, ps, err);
	line_reader_release(&lr);
	free(src.buf);
	ps->format = FOLDED_FORMAT;
	return ret;
}

/* ---------------------------------------------------------------- probing */

/* Whether line looks like a folded line; *semi says if it has a ';'. */
static bool
probe_line(const char *line, size_t len, bool *semi)
{
	size_t end = skip_space_back(line, len), tok = token_start(line, end);
	struct count c;

	*semi = false;
	if (!end || tok == end || parse_count(line + tok, end - tok, &c))
		return false;
	if (!skip_space_back(line, tok))
		return false;
	*semi = memchr(line, ';', tok) != NULL;
	return true;
}

/*
 * Score UTF-8 text. complete says the data is the whole input, so its last
 * line counts even with no newline; otherwise it may be cut anywhere.
 */
static int
probe_text(const char *data, size_t len, bool complete)
{
	size_t lines = 0, good = 0, semi = 0, pos = 0;

	/* A UTF-8 BOM needs no care: it only makes the first frame longer. */
	if (memchr(data, '\0', len))
		return 0;
	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (data + pos)) : len - pos;
		bool has_semi;

		if (!nl && !complete) {
			/*
			 * Only a cut line: a very long first line may still be
			 * a stack, but a weak guess.
			 */
			if (!lines && memchr(data + pos, ';', n))
				return 25;
			break;
		}
		if (skip_space_back(data + pos, n)) {
			lines++;
			if (probe_line(data + pos, n, &has_semi)) {
				good++;
				semi += has_semi;
			}
		}
		pos += n + 1;
	}
	if (!good)
		return 0;
	if (good * 10 >= lines * 9) {
		if (semi >= 3 || semi == good)
			return 80;
		return semi ? 70 : 30;
	}
	if (good * 2 >= lines)
		return semi ? 60 : 20;
	return semi ? 20 : 5;
}

static int
folded_probe(const char *data, size_t len)
{
	const unsigned char *p = (const unsigned char *)data;
	bool complete = len < IMPORT_PROBE_BYTES;
	struct strbuf sb = STRBUF_INIT;
	size_t pos = 2;
	int score;

	if (len < 2 || !((p[0] == 0xff && p[1] == 0xfe) || (p[0] == 0xfe && p[1] == 0xff)))
		return probe_text(data, len, complete);

	/* UTF-16: decode a little, enough to see some lines. */
	if (len > 16 * 1024 + 2) {
		len = 16 * 1024 + 2;
		complete = false;
	}
	strbuf_grow(&sb, len * 3 / 2);
	while (pos < len) {
		uint32_t cp;
		char tmp[4];
		size_t used = utf16_next(p + pos, len - pos, p[0] == 0xfe, true, &cp);

		strbuf_add(&sb, tmp, utf8_encode(cp, tmp));
		pos += used;
	}
	score = probe_text(sb.buf, sb.len, complete);
	strbuf_release(&sb);
	return score;
}

static const char *const folded_names[] = { ".folded", ".collapsed", NULL };

const struct importer importer_folded = {
	.name = "folded",
	.description = FOLDED_FORMAT,
	.probe = folded_probe,
	.load = folded_load,
	.names = folded_names,
};
