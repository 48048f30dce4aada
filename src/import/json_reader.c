#include "config.h"

#include "tflame/json_reader.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/import.h"
#include "tflame/input.h"
#include "tflame/xalloc.h"

/*
 * A hand-written tokenizer rather than a library: the importers want to
 * pull tokens (a SAX library pushes them, and turning that around needs a
 * queue), exact number text, the line of an error, U+FFFD for a broken
 * surrogate, and the tokens before a cut in a truncated file. Measured
 * against yajl on a 300 MB trace it is also faster (see the commit that
 * added it and bench/json-bench.sh).
 *
 * Input is read a block at a time and consumed a byte at a time by the
 * token scanners, so no token has to be contiguous in the buffer and a
 * block is only refilled when it is used up.
 */

#define BLOCK_SIZE (1024 * 1024)

enum state {
	ST_VALUE,        /* a value: the document, after ':' or after ',' in an array */
	ST_ARRAY_FIRST,  /* a value or ']' */
	ST_OBJECT_FIRST, /* a key or '}' */
	ST_KEY,          /* a key, after ',' in an object */
	ST_COLON,        /* ':' then a value */
	ST_AFTER,        /* ',' or the end of the container (or of the document) */
};

void
json_reader_init(struct json_reader *jr, struct input *in)
{
	memset(jr, 0, sizeof(*jr));
	jr->in = in;
	jr->buf = xmalloc(BLOCK_SIZE);
	jr->data = jr->buf;
	jr->line = 1;
	jr->state = ST_VALUE;
	jr->max_depth = JSON_READER_MAX_DEPTH;
	strbuf_init(&jr->text, 64);
}

void
json_reader_init_mem(struct json_reader *jr, const char *data, size_t len)
{
	memset(jr, 0, sizeof(*jr));
	jr->mem = data;
	jr->data = data;
	jr->end = len;
	jr->eof = true;
	jr->line = 1;
	jr->state = ST_VALUE;
	jr->max_depth = JSON_READER_MAX_DEPTH;
	strbuf_init(&jr->text, 64);
}

void
json_reader_release(struct json_reader *jr)
{
	free(jr->buf);
	free(jr->stack);
	strbuf_release(&jr->text);
	memset(jr, 0, sizeof(*jr));
}

/*
 * Make data[pos] available. Returns 1, 0 at the end of the input, or -1
 * with err set. Only called when the block is used up.
 */
static int
refill(struct json_reader *jr, struct tf_error *err)
{
	ssize_t n;

	if (jr->pos < jr->end)
		return 1;
	if (jr->eof)
		return 0;
	jr->base += jr->end;
	jr->pos = jr->end = 0;
	n = input_read(jr->in, jr->buf, BLOCK_SIZE, err);
	if (n < 0)
		return -1;
	if (n == 0) {
		jr->eof = true;
		return 0;
	}
	jr->end = (size_t)n;
	return 1;
}

/* The next byte without consuming it, -2 at the end, -1 on a read error. */
static inline int
peek_byte(struct json_reader *jr, struct tf_error *err)
{
	int r;

	if (jr->pos < jr->end)
		return (unsigned char)jr->data[jr->pos];
	r = refill(jr, err);
	if (r <= 0)
		return r < 0 ? -1 : -2;
	return (unsigned char)jr->data[jr->pos];
}

static uint64_t
offset_now(const struct json_reader *jr)
{
	return jr->base + jr->pos;
}

static enum json_token
syntax_error(struct json_reader *jr, struct tf_error *err, const char *what)
{
	tf_error_set_at(err, NULL, jr->line, "%s (at byte %llu)", what,
			(unsigned long long)offset_now(jr));
	jr->done = true;
	return JSON_ERROR;
}

static enum json_token
read_error(struct json_reader *jr)
{
	jr->done = true;
	return JSON_ERROR;
}

static enum json_token
truncated(struct json_reader *jr)
{
	jr->done = true;
	return JSON_TRUNCATED;
}

/* Skip whitespace; returns the next byte as peek_byte() does. */
static int
skip_space(struct json_reader *jr, struct tf_error *err)
{
	for (;;) {
		const char *p = jr->data + jr->pos, *e = jr->data + jr->end;
		int c;

		for (; p < e; p++) {
			if (*p == '\n')
				jr->line++;
			else if (*p != ' ' && *p != '\t' && *p != '\r')
				break;
		}
		jr->pos = (size_t)(p - jr->data);
		if (p < e)
			return (unsigned char)*p;
		c = peek_byte(jr, err);
		if (c < 0)
			return c;
	}
}

static void
add_utf8(struct strbuf *sb, uint32_t cp)
{
	char out[4];
	size_t n;

	if (cp < 0x80) {
		out[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		out[0] = (char)(0xf0 | cp >> 18);
		out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	strbuf_add(sb, out, n);
}

static int
hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Read the 4 hex digits of a \u escape (the "\u" is consumed). Returns the
 * value, -1 on bad digits (err set), -2 at the end of the input, -3 on a
 * read error.
 */
static int32_t
read_hex4(struct json_reader *jr, struct tf_error *err)
{
	int32_t v = 0;

	for (int i = 0; i < 4; i++) {
		int c = peek_byte(jr, err), h;

		if (c == -2)
			return -2;
		if (c == -1)
			return -3;
		h = hex_value(c);
		if (h < 0) {
			syntax_error(jr, err, "bad \\u escape in string");
			return -1;
		}
		v = v << 4 | h;
		jr->pos++;
	}
	return v;
}

/*
 * Read a string whose opening quote is consumed into jr->text. Returns
 * JSON_STRING, JSON_TRUNCATED or JSON_ERROR.
 */
static enum json_token
read_string(struct json_reader *jr, struct tf_error *err)
{
	/* A high surrogate waiting for its low half, or 0. */
	uint32_t high = 0;

	strbuf_setlen(&jr->text, 0);
	for (;;) {
		const char *p = jr->data + jr->pos, *q = p, *e = jr->data + jr->end;
		int c;

		while (q < e && *q != '"' && *q != '\\')
			q++;
		if (q > p) {
			if (high) {
				add_utf8(&jr->text, 0xfffd);
				high = 0;
			}
			strbuf_add(&jr->text, p, (size_t)(q - p));
			jr->pos += (size_t)(q - p);
		}
		c = peek_byte(jr, err);
		if (c == -2)
			return truncated(jr);
		if (c == -1)
			return read_error(jr);
		if (c != '"' && c != '\\')
			continue;
		jr->pos++;
		if (c == '"') {
			if (high)
				add_utf8(&jr->text, 0xfffd);
			return JSON_STRING;
		}
		c = peek_byte(jr, err);
		if (c == -2)
			return truncated(jr);
		if (c == -1)
			return read_error(jr);
		jr->pos++;
		if (c == 'u') {
			int32_t v = read_hex4(jr, err);

			if (v == -2)
				return truncated(jr);
			if (v < 0)
				return v == -1 ? JSON_ERROR : read_error(jr);
			if (v >= 0xdc00 && v <= 0xdfff) {
				/* A low half: whole with a high one, else broken. */
				add_utf8(&jr->text, high ? 0x10000 + ((high - 0xd800) << 10) +
						   ((uint32_t)v - 0xdc00) : 0xfffd);
				high = 0;
			} else {
				if (high)
					add_utf8(&jr->text, 0xfffd);
				high = 0;
				if (v >= 0xd800 && v <= 0xdbff)
					high = (uint32_t)v;
				else
					add_utf8(&jr->text, (uint32_t)v);
			}
			continue;
		}
		if (high) {
			add_utf8(&jr->text, 0xfffd);
			high = 0;
		}
		switch (c) {
		case '"':
		case '\\':
		case '/':
			strbuf_addch(&jr->text, c);
			break;
		case 'b':
			strbuf_addch(&jr->text, '\b');
			break;
		case 'f':
			strbuf_addch(&jr->text, '\f');
			break;
		case 'n':
			strbuf_addch(&jr->text, '\n');
			break;
		case 'r':
			strbuf_addch(&jr->text, '\r');
			break;
		case 't':
			strbuf_addch(&jr->text, '\t');
			break;
		default:
			jr->pos--;
			return syntax_error(jr, err, "bad escape in string");
		}
	}
}

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Whether s is a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool
number_syntax(const char *s, size_t len)
{
	size_t i = 0;

	if (i < len && s[i] == '-')
		i++;
	if (i >= len || !is_digit(s[i]))
		return false;
	if (s[i] == '0')
		i++;
	else
		while (i < len && is_digit(s[i]))
			i++;
	if (i < len && s[i] == '.') {
		if (++i >= len || !is_digit(s[i]))
			return false;
		while (i < len && is_digit(s[i]))
			i++;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= len || !is_digit(s[i]))
			return false;
		while (i < len && is_digit(s[i]))
			i++;
	}
	return i == len;
}

static bool
is_number_byte(char c)
{
	return is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

static enum json_token
read_number(struct json_reader *jr, struct tf_error *err)
{
	strbuf_setlen(&jr->text, 0);
	for (;;) {
		const char *p = jr->data + jr->pos, *q = p, *e = jr->data + jr->end;
		int c;

		while (q < e && is_number_byte(*q))
			q++;
		strbuf_add(&jr->text, p, (size_t)(q - p));
		jr->pos += (size_t)(q - p);
		if (q < e)
			break;
		c = peek_byte(jr, err);
		if (c == -1)
			return read_error(jr);
		if (c == -2) {
			/* A number may end the input only if it is the document. */
			if (jr->depth)
				return truncated(jr);
			break;
		}
	}
	/* Most numbers of a profile are integers: read them on the way. */
	jr->int_ok = json_parse_int(jr->text.buf, jr->text.len, &jr->int_value) &&
		     (jr->text.buf[jr->text.buf[0] == '-'] != '0' ||
		      jr->text.len == 1 + (jr->text.buf[0] == '-'));
	if (!jr->int_ok && !number_syntax(jr->text.buf, jr->text.len))
		return syntax_error(jr, err, "bad number");
	return JSON_NUMBER;
}

static enum json_token
read_literal(struct json_reader *jr, struct tf_error *err, const char *word,
	     enum json_token tok)
{
	for (const char *w = word; *w; w++) {
		int c = peek_byte(jr, err);

		if (c == -1)
			return read_error(jr);
		if (c == -2)
			return truncated(jr);
		if (c != *w)
			return syntax_error(jr, err, "unexpected character");
		jr->pos++;
	}
	return tok;
}

static enum json_token
push(struct json_reader *jr, struct tf_error *err, unsigned char kind)
{
	if (jr->depth >= jr->max_depth) {
		char what[64];

		snprintf(what, sizeof(what), "nested deeper than %zu levels", jr->max_depth);
		return syntax_error(jr, err, what);
	}
	ALLOC_GROW(jr->stack, jr->depth, jr->alloc_stack);
	jr->stack[jr->depth++] = kind;
	jr->pos++;
	jr->state = kind == '{' ? ST_OBJECT_FIRST : ST_ARRAY_FIRST;
	return kind == '{' ? JSON_OBJECT_BEGIN : JSON_ARRAY_BEGIN;
}

/* A value starting at byte c (whitespace skipped). */
static enum json_token
read_value(struct json_reader *jr, struct tf_error *err, int c)
{
	enum json_token tok;

	switch (c) {
	case '{':
	case '[':
		return push(jr, err, (unsigned char)c);
	case '"':
		jr->pos++;
		tok = read_string(jr, err);
		break;
	case 't':
		tok = read_literal(jr, err, "true", JSON_TRUE);
		break;
	case 'f':
		tok = read_literal(jr, err, "false", JSON_FALSE);
		break;
	case 'n':
		tok = read_literal(jr, err, "null", JSON_NULL);
		break;
	default:
		if (c == '-' || is_digit(c)) {
			tok = read_number(jr, err);
			break;
		}
		return syntax_error(jr, err, "expected a value");
	}
	if (tok > JSON_TRUNCATED)
		jr->state = ST_AFTER;
	return tok;
}

enum json_token
json_reader_next(struct json_reader *jr, struct tf_error *err)
{
	enum json_token tok;
	int c;

	if (jr->done)
		return jr->depth || jr->state != ST_AFTER ? JSON_TRUNCATED : JSON_END;
	for (;;) {
		c = skip_space(jr, err);
		if (c == -1)
			return read_error(jr);
		jr->tok_offset = offset_now(jr);
		jr->tok_line = jr->line;
		if (c == -2) {
			jr->done = true;
			if (!jr->depth && jr->state == ST_AFTER)
				return JSON_END;
			if (!jr->depth && jr->state == ST_VALUE)
				return syntax_error(jr, err, "empty document");
			return JSON_TRUNCATED;
		}
		switch (jr->state) {
		case ST_VALUE:
			return read_value(jr, err, c);
		case ST_ARRAY_FIRST:
			if (c == ']')
				goto close;
			return read_value(jr, err, c);
		case ST_OBJECT_FIRST:
			if (c == '}')
				goto close;
			__attribute__((fallthrough));
		case ST_KEY:
			if (c != '"')
				return syntax_error(jr, err, "expected a key");
			jr->pos++;
			tok = read_string(jr, err);
			if (tok != JSON_STRING)
				return tok;
			jr->state = ST_COLON;
			return JSON_KEY;
		case ST_COLON:
			if (c != ':')
				return syntax_error(jr, err, "expected ':'");
			jr->pos++;
			jr->state = ST_VALUE;
			continue;
		case ST_AFTER:
			if (!jr->depth)
				return syntax_error(jr, err, "text after the document");
			if (c == ',') {
				jr->pos++;
				jr->state = jr->stack[jr->depth - 1] == '{' ? ST_KEY : ST_VALUE;
				continue;
			}
			if (c == ']' || c == '}')
				goto close;
			return syntax_error(jr, err, jr->stack[jr->depth - 1] == '{'
						     ? "expected ',' or '}'" : "expected ',' or ']'");
		}
		BUG("json reader in state %d", jr->state);
	}
close:
	if (c != (jr->stack[jr->depth - 1] == '{' ? '}' : ']'))
		return syntax_error(jr, err, "mismatched bracket");
	jr->pos++;
	jr->depth--;
	jr->state = ST_AFTER;
	return c == '}' ? JSON_OBJECT_END : JSON_ARRAY_END;
}

int
json_reader_skip(struct json_reader *jr, enum json_token tok, struct tf_error *err)
{
	size_t depth = jr->depth;

	/* Callers pass on whatever they got: an end they did not check is not a value. */
	if (tok <= JSON_TRUNCATED)
		return tok == JSON_END ? JSON_TRUNCATED : tok;
	if (tok != JSON_OBJECT_BEGIN && tok != JSON_ARRAY_BEGIN)
		return 0;
	while (jr->depth >= depth) {
		tok = json_reader_next(jr, err);
		if (tok <= JSON_TRUNCATED)
			return tok == JSON_END ? JSON_TRUNCATED : tok;
	}
	return 0;
}

bool
json_parse_int(const char *s, size_t len, int64_t *v)
{
	bool neg = false;
	uint64_t u = 0;
	size_t i = 0;

	if (len && s[0] == '-') {
		neg = true;
		i++;
	}
	if (i == len)
		return false;
	for (; i < len; i++) {
		unsigned d;

		if (!is_digit(s[i]))
			return false;
		d = (unsigned)(s[i] - '0');
		/* No division per digit: only a 20th digit can overflow. */
		if (u >= UINT64_MAX / 10 && (u > UINT64_MAX / 10 || d > UINT64_MAX % 10))
			return false;
		u = u * 10 + d;
	}
	if (neg ? u > (uint64_t)INT64_MAX + 1 : u > INT64_MAX)
		return false;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return true;
}

static bool parse_scaled_any(const char *s, size_t len, int shift, int64_t *v);

/*
 * json_parse_scaled() of the numbers profiles are made of, fast: [-]digits
 * with an optional fraction, no exponent, at most 18 digits, shift from 0
 * to 18. Returns false, *v untouched, for anything else: the general path
 * then decides, with the same result for what this one reads.
 */
static bool
parse_scaled_plain(const char *s, size_t len, int shift, int64_t *v)
{
	static const uint64_t pow10[19] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
		1000000000, 10000000000, 100000000000, 1000000000000, 10000000000000,
		100000000000000, 1000000000000000, 10000000000000000,
		100000000000000000, 1000000000000000000,
	};
	const char *p = s, *end = s + len, *digits;
	uint64_t m = 0;
	size_t frac = 0, nd;
	bool neg = false;

	if (shift < 0 || shift > 18 || !len)
		return false;
	if (*p == '-') {
		neg = true;
		p++;
	}
	/* JSON has no leading zeros, nor a number starting with a dot. */
	digits = p;
	while (p < end && is_digit(*p))
		m = m * 10 + (uint64_t)(*p++ - '0');
	nd = (size_t)(p - digits);
	if (!nd || (*digits == '0' && nd > 1))
		return false;
	if (p < end && *p == '.') {
		const char *f = ++p;

		while (p < end && is_digit(*p))
			m = m * 10 + (uint64_t)(*p++ - '0');
		frac = (size_t)(p - f);
	}
	/* At most 18 digits: m cannot have wrapped. */
	if (p != end || nd + frac > 18)
		return false;
	if (frac <= (size_t)shift) {
		uint64_t mul = pow10[(size_t)shift - frac];

		if (m && m > (uint64_t)INT64_MAX / mul)
			return false;
		m *= mul;
	} else {
		/* Dropped digits round half away from zero, as below. */
		uint64_t div = pow10[frac - (size_t)shift];

		m = m / div + (m % div >= div / 2);
	}
	*v = neg ? -(int64_t)m : (int64_t)m;
	return true;
}

bool
json_parse_scaled(const char *s, size_t len, int shift, int64_t *v)
{
	if (parse_scaled_plain(s, len, shift, v))
		return true;
	return parse_scaled_any(s, len, shift, v);
}

/* json_parse_scaled() of any number. */
static bool
parse_scaled_any(const char *s, size_t len, int shift, int64_t *v)
{
	/* The significant digits, and the power of ten they are scaled by. */
	char digits[40];
	size_t nd = 0, i = 0;
	long exp10 = shift;
	bool neg = false, any = false, seen = false, round_up = false;
	uint64_t u = 0;

	if (!len)
		return false;
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	if (!number_syntax(s, len)) {
		/* Strings such as "+12" or "12." are numbers for ts fields too. */
		if (!len || (*s != '+' && s[len - 1] != '.'))
			return false;
	}
	if (s[i] == '-' || s[i] == '+')
		neg = s[i++] == '-';
	for (; i < len && (is_digit(s[i]) || s[i] == '.'); i++) {
		if (s[i] == '.') {
			any = true;
			continue;
		}
		if (any)
			exp10--;
		seen = true;
		if (nd == 0 && s[i] == '0')
			continue;
		/* A digit past the precision kept is dropped, its place kept. */
		if (nd < sizeof(digits))
			digits[nd++] = s[i];
		else
			exp10++;
	}
	if (!seen)
		return false;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		long e = 0;
		bool eneg = false;

		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			eneg = s[i++] == '-';
		for (; i < len && is_digit(s[i]); i++)
			if (e < 100000)
				e = e * 10 + (s[i] - '0');
		exp10 += eneg ? -e : e;
	}
	if (i != len)
		return false;
	/* digits * 10^exp10: drop the digits below 10^0, rounding. */
	while (exp10 < 0 && nd) {
		round_up = digits[nd - 1] >= '5';
		nd--;
		exp10++;
	}
	/* The last digit dropped is the first below the unit, which rounds. */
	if (exp10 < 0) {
		nd = 0; /* every digit was below half a unit */
		round_up = false;
	}
	for (size_t k = 0; k < nd; k++) {
		unsigned d = (unsigned)(digits[k] - '0');

		if (u > (UINT64_MAX - d) / 10)
			return false;
		u = u * 10 + d;
	}
	for (; exp10 > 0 && u; exp10--) {
		if (u > UINT64_MAX / 10)
			return false;
		u *= 10;
	}
	if (round_up) {
		if (u == UINT64_MAX)
			return false;
		u++;
	}
	if (neg ? u > (uint64_t)INT64_MAX + 1 : u > INT64_MAX)
		return false;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return true;
}

bool
json_parse_double(const char *s, size_t len, double *v)
{
	char tmp[64];
	char *end;

	if (!number_syntax(s, len) || len >= sizeof(tmp))
		return false;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	errno = 0;
	*v = strtod(tmp, &end);
	return end == tmp + len && isfinite(*v);
}

int
json_reader_fail(const struct json_reader *jr, enum json_token tok, struct tf_error *err)
{
	if (tok == JSON_ERROR)
		return -1;
	return tf_error_set_at(err, NULL, jr->line, "unexpected end of input");
}

int
json_reader_bad(const struct json_reader *jr, const char *what, struct tf_error *err)
{
	return tf_error_set_at(err, NULL, jr->tok_line, "%s (at byte %llu)", what,
			       (unsigned long long)jr->tok_offset);
}

int
json_reader_progress(const struct json_reader *jr, struct import_progress *pr,
		     uint64_t *reported, struct tf_error *err)
{
	uint64_t done = jr->base + jr->pos;

	if (!pr || done - *reported < ((uint64_t)1 << 20))
		return 0;
	atomic_fetch_add(&pr->bytes_done, done - *reported);
	*reported = done;
	if (atomic_load(&pr->cancel))
		return tf_error_set(err, "cancelled");
	return 0;
}

void
json_reader_progress_end(const struct json_reader *jr, struct import_progress *pr,
			 uint64_t *reported)
{
	uint64_t done = jr->base + jr->pos;

	if (pr && done > *reported)
		atomic_fetch_add(&pr->bytes_done, done - *reported);
	*reported = done;
}

int
json_reader_badf(const struct json_reader *jr, struct tf_error *err, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	json_reader_bad(jr, sb.buf, err);
	strbuf_release(&sb);
	return -1;
}

int
json_reader_skip_value(struct json_reader *jr, enum json_token tok, struct tf_error *err)
{
	int r = json_reader_skip(jr, tok, err);

	return r ? json_reader_fail(jr, r, err) : 0;
}

char
json_first_byte(const char *data, size_t len)
{
	size_t i = 0;

	if (len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < len && strchr(" \t\r\n", data[i]))
		i++;
	return i < len ? data[i] : 0;
}

bool
json_probe_has_key(const char *data, size_t len, const char *name)
{
	size_t n = strlen(name);
	const char *p = data, *end = data + len;

	while ((p = memmem(p, (size_t)(end - p), name, n))) {
		const char *q = p + n;

		if (p > data && p[-1] == '"' && q < end && *q == '"') {
			for (q++; q < end && strchr(" \t\r\n", *q); q++)
				;
			if (q < end && *q == ':')
				return true;
		}
		p += n;
	}
	return false;
}

int
json_reader_tree(struct json_reader *jr, const char *children, const char *what,
		 const struct json_tree_ops *ops, void *ctx, struct tf_error *err)
{
	int64_t *open = NULL, next_node = 0;
	size_t nr_open = 0, alloc_open = 0;
	enum json_token tok = JSON_OBJECT_BEGIN;
	char key[64];
	int ret = -1;

	for (;;) {
		if (tok == JSON_OBJECT_BEGIN) {
			ALLOC_GROW(open, nr_open, alloc_open);
			ops->begin(ctx, nr_open ? open[nr_open - 1] : -1, next_node);
			open[nr_open++] = next_node++;
		}
		tok = json_reader_next(jr, err);
		if (tok == JSON_KEY) {
			/* The key's text goes with the next token: keep a copy. */
			size_t n = json_reader_len(jr) < sizeof(key) - 1 ? json_reader_len(jr)
									 : sizeof(key) - 1;

			memcpy(key, json_reader_text(jr), n);
			key[n] = '\0';
			tok = json_reader_next(jr, err);
			if (!strcmp(key, children) && tok == JSON_ARRAY_BEGIN) {
				tok = json_reader_next(jr, err);
				if (tok == JSON_OBJECT_BEGIN)
					continue; /* a child begins */
				if (tok != JSON_ARRAY_END)
					goto unexpected;
			} else if (!strcmp(key, children)) {
				if (tok <= JSON_TRUNCATED)
					goto unexpected;
				json_reader_badf(jr, err, "%s is not an array", children);
				goto out;
			} else if (ops->member(ctx, open[nr_open - 1], key, tok)) {
				goto out;
			}
			tok = JSON_KEY;
			continue;
		}
		if (tok == JSON_OBJECT_END) {
			if (ops->end(ctx, open[--nr_open]))
				goto out;
			if (!nr_open)
				break;
			/* After a child: another child, or the end of the list. */
			tok = json_reader_next(jr, err);
			if (tok == JSON_OBJECT_BEGIN)
				continue;
			if (tok == JSON_ARRAY_END) {
				tok = JSON_KEY;
				continue;
			}
		}
unexpected:
		if (tok <= JSON_TRUNCATED)
			json_reader_fail(jr, tok, err);
		else
			json_reader_badf(jr, err, "%s is not an object", what);
		goto out;
	}
	ret = 0;
out:
	free(open);
	return ret;
}

int
json_reader_load(struct input *in, json_parse_fn *parse, const struct import_options *opts,
		 struct profile_set *ps, struct tf_error *err)
{
	struct json_reader jr;
	int ret;

	json_reader_init(&jr, in);
	ret = parse(&jr, opts, ps, err);
	json_reader_release(&jr);
	return ret;
}
