#ifndef TFLAME_INPUT_H
#define TFLAME_INPUT_H

/*
 * Opening an input: a path, or "-" for standard input, whose bytes are
 * plain, gzip or zstd (told apart by their magic bytes, not by the name).
 * Readers always see the decompressed stream.
 *
 * The first bytes can be peeked at (to probe the format) and are then read
 * again by input_read(). A plain regular file can also be read at any offset
 * with input_pread(), which is what lets an importer parse it on several
 * threads at once.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tf_error;

enum input_compression {
	INPUT_PLAIN,
	INPUT_GZIP,
	INPUT_ZSTD,
};

struct input {
	char *name;          /* for messages: the path, or "<stdin>"; owned */
	int fd;
	bool regular;        /* a regular file (size known) */
	enum input_compression compression;
	uint64_t size;       /* bytes on disk when regular, else 0 */
	uint64_t raw_read;   /* bytes read from fd so far (progress) */

	char *peek;          /* decompressed bytes read ahead by input_peek() */
	size_t peek_len, peek_pos;
	uint64_t offset;     /* decompressed bytes handed out by input_read() */
	bool eof;

	void *codec;         /* the decompressor's state, or NULL */
	unsigned char *raw;  /* compressed bytes waiting for the decompressor */
	size_t raw_len, raw_pos, raw_alloc;
};

/*
 * Open path ("-" is standard input) and detect its compression. Fails, with
 * err naming the file, on a missing or unreadable file, a directory, or an
 * empty input. On success close it with input_close().
 */
int input_open(struct input *in, const char *path, struct tf_error *err);
void input_close(struct input *in);

/*
 * Make at least want decompressed bytes available to peek at (fewer at the
 * end of the input) and point *data at them; they are not consumed. The
 * pointer is valid until the next input_* call. Returns 0, or -1 with err set.
 */
int input_peek(struct input *in, size_t want, const char **data, size_t *len,
	       struct tf_error *err);

/*
 * Read up to len decompressed bytes into buf. Returns the count (0 only at
 * the end), or -1 with err set: a read error, corrupt or truncated
 * compressed data ("file.gz: truncated gzip data").
 */
ssize_t input_read(struct input *in, void *buf, size_t len, struct tf_error *err);

/* True if input_pread() works: a plain regular file. */
bool input_seekable(const struct input *in);

/*
 * Read up to len bytes at offset of a seekable input, independent of
 * input_read()'s position; safe from several threads at once. Returns the
 * count, 0 past the end, or -1 with err set.
 */
ssize_t input_pread(struct input *in, void *buf, size_t len, uint64_t offset,
		    struct tf_error *err);

/* "plain", "gzip" or "zstd". */
const char *input_compression_name(enum input_compression c);

#endif /* TFLAME_INPUT_H */
