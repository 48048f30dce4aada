#ifndef TFLAME_JSON_READER_H
#define TFLAME_JSON_READER_H

/*
 * A streaming pull reader for the JSON importers (speedscope, Chrome).
 *
 *	struct json_reader jr;
 *	json_reader_init(&jr, in);
 *	while ((tok = json_reader_next(&jr, &err)) > JSON_END) ...
 *	json_reader_release(&jr);
 *
 * Each call returns the next token of the document. Memory is one input
 * block plus the longest string, whatever the size of the file, and the
 * nesting is tracked in a byte stack, not on the C stack: a document nested
 * deeper than JSON_READER_MAX_DEPTH is an error, never a crash.
 *
 * Strings (keys and values) are decoded: every escape, \uXXXX surrogate
 * pairs included; an unpaired surrogate becomes U+FFFD. Numbers are handed
 * out as their text, so that callers convert them exactly (json_parse_int(),
 * json_parse_scaled()) rather than through a double.
 *
 * A document cut off before its end returns JSON_TRUNCATED once everything
 * complete before the cut has been returned, so that a caller may keep what
 * it read (Trace Event files often lack their closing bracket).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tflame/strbuf.h"

struct input;
struct tf_error;

/* Deep enough for any profile format, shallow enough to be a clear error. */
#define JSON_READER_MAX_DEPTH 1000
/*
 * For formats whose nesting is the call tree (a .heapprofile, GHC's -pj):
 * two levels a frame, so stacks of a million frames. The reader's depth
 * costs a byte a level, never C stack.
 */
#define JSON_READER_TREE_DEPTH (2u << 20)

enum json_token {
	JSON_ERROR = -1,     /* err is set */
	JSON_END = 0,        /* the input ended after a complete document */
	JSON_TRUNCATED,      /* the input ended inside the document */
	JSON_OBJECT_BEGIN,
	JSON_OBJECT_END,
	JSON_ARRAY_BEGIN,
	JSON_ARRAY_END,
	JSON_KEY,            /* text: the decoded key */
	JSON_STRING,         /* text: the decoded string */
	JSON_NUMBER,         /* text: the number as written */
	JSON_TRUE,
	JSON_FALSE,
	JSON_NULL,
};

struct json_reader {
	struct input *in;       /* NULL when reading memory */
	const char *mem;        /* json_reader_init_mem(): the whole document */
	const char *data;       /* bytes at hand; data[pos..end) is unread */
	char *buf;              /* owned block that data points into, or NULL */
	size_t pos, end, cap;
	bool eof;
	uint64_t base;          /* offset of buf[0] in the input */
	uint64_t line;          /* 1-based line of the next byte */
	uint64_t tok_offset, tok_line; /* where the last token started */

	unsigned char *stack;   /* '{' or '[' per open container */
	size_t depth, alloc_stack;
	size_t max_depth;       /* deeper is an error; JSON_READER_MAX_DEPTH */
	int state;              /* what may come next, see json_reader.c */
	bool done;              /* JSON_END, JSON_TRUNCATED or an error was returned */

	struct strbuf text;     /* of the last key, string or number */
	/* the last number, when it is an integer that fits: json_reader_int() */
	bool int_ok;
	int64_t int_value;
};

/* Read the decompressed stream of in. */
void json_reader_init(struct json_reader *jr, struct input *in);
/* Read len bytes of memory (not copied: it must outlive the reader). */
void json_reader_init_mem(struct json_reader *jr, const char *data, size_t len);
void json_reader_release(struct json_reader *jr);

/*
 * The next token. After JSON_END, JSON_TRUNCATED or JSON_ERROR it keeps
 * returning that. A syntax error is "LINE: what (at byte N)" in err.
 */
enum json_token json_reader_next(struct json_reader *jr, struct tf_error *err);

/*
 * Skip the rest of a value whose first token tok was just returned: for
 * JSON_OBJECT_BEGIN or JSON_ARRAY_BEGIN, everything up to its end; for
 * another value, nothing. Returns 0, or the JSON_TRUNCATED or JSON_ERROR
 * that ended the document first; tok itself may be JSON_ERROR or
 * JSON_TRUNCATED (returned as is) or JSON_END (JSON_TRUNCATED), so that
 * callers can skip a value without checking what they got first.
 */
int json_reader_skip(struct json_reader *jr, enum json_token tok, struct tf_error *err);

/*
 * json_reader_bad() (below) with a printf-style message. Returns -1.
 */
int json_reader_badf(const struct json_reader *jr, struct tf_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Skip a value as json_reader_skip() does, for importers: 0, or -1 with
 * err set (json_reader_fail()).
 */
int json_reader_skip_value(struct json_reader *jr, enum json_token tok, struct tf_error *err);

/*
 * At the end of a load: publish to pr (which may be NULL) the bytes read
 * since *reported that json_reader_progress() (below) kept back.
 */
/*
 * The short names an importer reads with, for its state type T (a struct
 * with members jr and err): next(), json_fail(), bad() and skip(), the
 * json_reader calls above on its own reader and error. An importer says
 * JSON_READER_SHORTHANDS(struct mine) once rather than writing the four.
 */
#define JSON_READER_SHORTHANDS(T) \
	static inline enum json_token next(T *s_) \
	{ \
		return json_reader_next(s_->jr, s_->err); \
	} \
	static inline int json_fail(T *s_, enum json_token tok) \
	{ \
		return json_reader_fail(s_->jr, tok, s_->err); \
	} \
	static inline int bad(T *s_, const char *what) \
	{ \
		return json_reader_bad(s_->jr, what, s_->err); \
	} \
	static inline int skip(T *s_, enum json_token tok) \
	{ \
		return json_reader_skip_value(s_->jr, tok, s_->err); \
	}

struct import_progress;
void json_reader_progress_end(const struct json_reader *jr, struct import_progress *pr,
			      uint64_t *reported);

/*
 * A call tree written as nested objects, each node's children in an
 * array member (V8's .heapprofile, GHC's -pj): json_reader_tree() walks
 * it with a stack of its own, never recursion, and calls these. The
 * reader's max_depth must allow the tree's depth (two levels a node).
 */
struct json_tree_ops {
	/* A node begins; parent is the node it is a child of, or -1. */
	void (*begin)(void *ctx, int64_t parent, int64_t node);
	/*
	 * A member of node other than the children: key, and the first
	 * token of its value, which the callback reads to its end (it may
	 * call json_reader_skip_value()). Returns 0, or -1 with err set.
	 */
	int (*member)(void *ctx, int64_t node, const char *key, enum json_token tok);
	/* The node's object ended. Returns 0, or -1 with err set. */
	int (*end)(void *ctx, int64_t node);
};

/*
 * Walk the tree whose root object has just begun (JSON_OBJECT_BEGIN was
 * returned), nodes numbered 0, 1, ... in the order they begin (parents
 * before children), their children in the member named children. what
 * names a node in errors: "WHAT is not an object". Returns 0 after the
 * root's end, or -1 with err set.
 */
int json_reader_tree(struct json_reader *jr, const char *children, const char *what,
		     const struct json_tree_ops *ops, void *ctx, struct tf_error *err);

/*
 * For probes, which see the start of a file only and never parse it:
 * whether "name" occurs as an object key (followed by a colon).
 */
bool json_probe_has_key(const char *data, size_t len, const char *name);

/* The text of the last key, string or number; NUL-terminated, valid until next. */
static inline const char *
json_reader_text(const struct json_reader *jr)
{
	return jr->text.buf;
}

static inline size_t
json_reader_len(const struct json_reader *jr)
{
	return jr->text.len;
}

/*
 * Right after a JSON_NUMBER: whether it is an integer written without
 * fraction or exponent that fits in int64_t, and if so *v is its value.
 * The same as json_parse_int() of its text, already done while reading
 * it (the importers of long arrays of numbers want it fast).
 */
static inline bool
json_reader_int(const struct json_reader *jr, int64_t *v)
{
	if (!jr->int_ok)
		return false;
	*v = jr->int_value;
	return true;
}

/* Open containers: 0 at the top level, 1 inside the outermost one. */
static inline size_t
json_reader_depth(const struct json_reader *jr)
{
	return jr->depth;
}

/*
 * Whether s (a number's or a string's text) is an integer written without
 * fraction or exponent that fits in int64_t; if so *v is its value.
 */
bool json_parse_int(const char *s, size_t len, int64_t *v);

/*
 * s (a number's or a string's text, e.g. "12.3456e2") times 10^shift, to
 * the nearest integer (halves away from zero): how a time in µs becomes ns
 * exactly. Returns false if s is not a number or the result does not fit.
 */
bool json_parse_scaled(const char *s, size_t len, int shift, int64_t *v);

/* s as a double (any JSON number); false if it is not one. */
bool json_parse_double(const char *s, size_t len, double *v);

/*
 * For importers, the errors every one of them gives: tok (JSON_ERROR,
 * whose message is set, or the end of the input) as an error, "LINE:
 * unexpected end of input"; and what is wrong with the last token, as
 * "LINE: what (at byte N)". Both return -1.
 */
int json_reader_fail(const struct json_reader *jr, enum json_token tok, struct tf_error *err);
int json_reader_bad(const struct json_reader *jr, const char *what, struct tf_error *err);

struct import_progress;
/*
 * Publish the bytes read since *reported to pr (which may be NULL), a
 * megabyte at a time, and see whether the load was cancelled: -1 with
 * err "cancelled" if so.
 */
int json_reader_progress(const struct json_reader *jr, struct import_progress *pr,
			 uint64_t *reported, struct tf_error *err);

/*
 * The first byte of data past blanks and a UTF-8 byte-order mark, or 0:
 * how a probe tells a JSON object ('{') from an array or from text.
 */
char json_first_byte(const char *data, size_t len);

struct import_options;
struct profile_set;
typedef int json_parse_fn(struct json_reader *jr, const struct import_options *opts,
			  struct profile_set *ps, struct tf_error *err);
/* An importer's load(): parse (its parse function) on a reader of in. */
int json_reader_load(struct input *in, json_parse_fn *parse, const struct import_options *opts,
		     struct profile_set *ps, struct tf_error *err);

#endif /* TFLAME_JSON_READER_H */
