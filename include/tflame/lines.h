#ifndef TFLAME_LINES_H
#define TFLAME_LINES_H

/*
 * A fast line reader for the text importers.
 *
 * It pulls blocks from a source (struct input, a range of a seekable input,
 * or a memory buffer) into one large buffer and hands out lines without
 * copying them. A line is given without its "\n" and without a "\r" before
 * it (CRLF input). Lines may be of any length: the buffer grows to hold the
 * longest one. The last line of an input counts even with no final newline,
 * except where compressed data was cut short: there it is only part of a
 * line, and is dropped (see struct input's truncated).
 *
 * A line pointer is valid until the next line_reader_next() call. The data
 * is not NUL-terminated; use the length.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct input;
struct tf_error;

/* Read up to len bytes into buf: the count, 0 at the end, -1 with err set. */
typedef ssize_t line_source_fn(void *arg, char *buf, size_t len, struct tf_error *err);

struct line_reader {
	line_source_fn *read;
	void *arg;
	char *buf;
	size_t cap;          /* bytes allocated at buf */
	size_t pos, end;     /* unread data is buf[pos..end) */
	bool eof;            /* the source said 0 */
	uint64_t lineno;     /* number of the line last returned (1-based) */
	uint64_t bytes;      /* bytes consumed, newlines included */

	/* for line_reader_init_range() */
	struct input *in;
	uint64_t range_pos, range_end;
	/* for line_reader_init_mem() */
	const char *mem;
	size_t mem_len, mem_pos;
};

/* Read lines of the whole decompressed stream of in. */
void line_reader_init(struct line_reader *lr, struct input *in);
/* Read lines of bytes [start, end) of a seekable input (input_pread()). */
void line_reader_init_range(struct line_reader *lr, struct input *in, uint64_t start,
			    uint64_t end);
/* Read lines of a memory buffer (not copied; it must outlive the reader). */
void line_reader_init_mem(struct line_reader *lr, const char *data, size_t len);
/* Read lines from any source. */
void line_reader_init_fn(struct line_reader *lr, line_source_fn *fn, void *arg);
void line_reader_release(struct line_reader *lr);

/*
 * The next line: returns 1 and sets *line and *len, 0 at the end of the
 * input, or -1 with err set if the source failed.
 */
int line_reader_next(struct line_reader *lr, const char **line, size_t *len,
		     struct tf_error *err);

struct import_options;
struct import_progress;
struct profile_set;

/*
 * Add the bytes lr has read since *reported to pr's count, once a
 * megabyte has gathered or when final, so that atomics stay rare. Returns
 * 0, or -1 with err "cancelled" when pr asks the import to stop. pr may
 * be NULL.
 */
int line_reader_progress(const struct line_reader *lr, struct import_progress *pr,
			 uint64_t *reported, bool final, struct tf_error *err);

struct builder;

/* What line_reader_each() calls on a line: 0, or -1 with err set to stop. */
typedef int line_fn(void *ctx, const char *line, size_t len, uint64_t lineno,
		    struct tf_error *err);

/*
 * Call fn on every line of lr, adding progress to pr (may be NULL) and
 * stopping with "cancelled" when pr asks. Once b (may be NULL) has dropped
 * a sample for --max-samples, the rest would be dropped too: it stops
 * there and returns 0. Returns 0, or -1 with err set by fn, the source or
 * the cancel. Progress is complete on return.
 */
int line_reader_each(struct line_reader *lr, struct import_progress *pr, const struct builder *b,
		     line_fn *fn, void *ctx, struct tf_error *err);

/* A text importer's parser of every line of lr (import.h's *_parse_lines()). */
typedef int line_parse_fn(struct line_reader *lr, const struct import_options *opts,
			  struct profile_set *ps, struct tf_error *err);

/* A text importer's load(): parse the lines of all of in. */
int line_reader_load(struct input *in, line_parse_fn *parse, const struct import_options *opts,
		     struct profile_set *ps, struct tf_error *err);

#endif /* TFLAME_LINES_H */
