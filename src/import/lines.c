#include "config.h"

#include "tflame/lines.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/import.h"
#include "tflame/input.h"
#include "tflame/xalloc.h"

/*
 * Bytes read at a time. A block fits in a core's L2 cache, and the buffer
 * (two blocks) stays small: every page of a fresh buffer costs a fault,
 * and a megabyte block cost the parser threads a sixth of their time in
 * faults and copying on a 100 MB perf script.
 */
#define BLOCK (256 * 1024)

static ssize_t
read_input(void *arg, char *buf, size_t len, struct tf_error *err)
{
	struct line_reader *lr = arg;

	return input_read(lr->in, buf, len, err);
}

static ssize_t
read_range(void *arg, char *buf, size_t len, struct tf_error *err)
{
	struct line_reader *lr = arg;
	ssize_t n;

	if (lr->range_pos >= lr->range_end)
		return 0;
	if (len > lr->range_end - lr->range_pos)
		len = (size_t)(lr->range_end - lr->range_pos);
	n = input_pread(lr->in, buf, len, lr->range_pos, err);
	if (n > 0)
		lr->range_pos += (uint64_t)n;
	return n;
}

static ssize_t
read_mem(void *arg, char *buf, size_t len, struct tf_error *err)
{
	struct line_reader *lr = arg;

	(void)err;
	if (len > lr->mem_len - lr->mem_pos)
		len = lr->mem_len - lr->mem_pos;
	memcpy(buf, lr->mem + lr->mem_pos, len);
	lr->mem_pos += len;
	return (ssize_t)len;
}

void
line_reader_init_fn(struct line_reader *lr, line_source_fn *fn, void *arg)
{
	memset(lr, 0, sizeof(*lr));
	lr->read = fn;
	lr->arg = arg;
}

void
line_reader_init(struct line_reader *lr, struct input *in)
{
	line_reader_init_fn(lr, read_input, lr);
	lr->in = in;
}

void
line_reader_init_range(struct line_reader *lr, struct input *in, uint64_t start,
		       uint64_t end)
{
	line_reader_init_fn(lr, read_range, lr);
	lr->in = in;
	lr->range_pos = start;
	lr->range_end = end;
}

void
line_reader_init_mem(struct line_reader *lr, const char *data, size_t len)
{
	line_reader_init_fn(lr, read_mem, lr);
	lr->mem = data;
	lr->mem_len = len;
}

void
line_reader_release(struct line_reader *lr)
{
	free(lr->buf);
	lr->buf = NULL;
	lr->cap = lr->pos = lr->end = 0;
}

/* Move the unread tail to the front and read more. 1, 0 at the end, or -1. */
static int
refill(struct line_reader *lr, struct tf_error *err)
{
	size_t left = lr->end - lr->pos;
	ssize_t n;

	if (lr->eof)
		return 0;
	if (lr->pos && left)
		memmove(lr->buf, lr->buf + lr->pos, left);
	lr->pos = 0;
	lr->end = left;
	if (lr->cap - lr->end < BLOCK) {
		size_t cap = lr->cap ? lr->cap : 2 * BLOCK;

		while (cap - lr->end < BLOCK)
			cap *= 2;
		lr->buf = xrealloc(lr->buf, cap);
		lr->cap = cap;
	}
	n = lr->read(lr->arg, lr->buf + lr->end, lr->cap - lr->end, err);
	if (n < 0)
		return -1;
	if (n == 0) {
		lr->eof = true;
		return 0;
	}
	lr->end += (size_t)n;
	return 1;
}

int
line_reader_next(struct line_reader *lr, const char **line, size_t *len,
		 struct tf_error *err)
{
	size_t scanned = 0;

	for (;;) {
		/* No buffer before the first read: NULL + 0 is undefined too. */
		char *start = lr->buf ? lr->buf + lr->pos : NULL;
		char *nl = lr->end > lr->pos + scanned
				   ? memchr(start + scanned, '\n', lr->end - lr->pos - scanned)
				   : NULL;
		size_t n;

		if (nl) {
			n = (size_t)(nl - start);
			lr->pos += n + 1;
			lr->bytes += n + 1;
		} else {
			int r;

			scanned = lr->end - lr->pos;
			r = refill(lr, err);
			if (r < 0)
				return -1;
			if (r > 0)
				continue;
			if (lr->read == read_input && lr->in->truncated &&
			    !lr->in->cut_lines_known) {
				/*
				 * The compressed data was cut short: a last line
				 * with no newline is only part of one, which read
				 * as a whole would count a sample it does not hold.
				 */
				lr->in->cut_lines_known = true;
				lr->in->cut_lines = lr->lineno;
				lr->in->cut_partial = lr->end - lr->pos;
				lr->bytes += lr->end - lr->pos;
				lr->pos = lr->end;
			}
			if (lr->pos == lr->end)
				return 0;
			/* The last line, with no newline. */
			start = lr->buf + lr->pos;
			n = lr->end - lr->pos;
			lr->pos = lr->end;
			lr->bytes += n;
		}
		if (n && start[n - 1] == '\r')
			n--;
		lr->lineno++;
		*line = start;
		*len = n;
		return 1;
	}
}

/* Progress is published after this many bytes, to keep atomics rare. */
#define PROGRESS_STEP (1024 * 1024)

int
line_reader_progress(const struct line_reader *lr, struct import_progress *pr,
		     uint64_t *reported, bool final, struct tf_error *err)
{
	if (!pr || (!final && lr->bytes - *reported < PROGRESS_STEP))
		return 0;
	atomic_fetch_add(&pr->bytes_done, lr->bytes - *reported);
	*reported = lr->bytes;
	if (!final && atomic_load(&pr->cancel))
		return tf_error_set(err, "cancelled");
	return 0;
}

int
line_reader_each(struct line_reader *lr, struct import_progress *pr, const struct builder *b,
		 line_fn *fn, void *ctx, struct tf_error *err)
{
	uint64_t reported = lr->bytes;
	const char *line;
	size_t len;
	int r;

	while ((r = line_reader_next(lr, &line, &len, err)) > 0) {
		if (fn(ctx, line, len, lr->lineno, err))
			return -1;
		if (b && builder_stopped(b))
			break;
		if (line_reader_progress(lr, pr, &reported, false, err))
			return -1;
	}
	line_reader_progress(lr, pr, &reported, true, err);
	return r < 0 ? -1 : 0;
}

int
line_reader_load(struct input *in, line_parse_fn *parse, const struct import_options *opts,
		 struct profile_set *ps, struct tf_error *err)
{
	struct line_reader lr;
	int ret;

	line_reader_init(&lr, in);
	ret = parse(&lr, opts, ps, err);
	line_reader_release(&lr);
	return ret;
}
