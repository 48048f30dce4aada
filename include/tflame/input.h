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

struct strbuf;
struct tf_error;

enum input_compression {
	INPUT_PLAIN,
	INPUT_GZIP,
	INPUT_ZSTD,
	/*
	 * The first file of a zip archive, deflated or stored (a profile
	 * zipped to be shared); the archive's other files are not read.
	 */
	INPUT_ZIP,
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
	uint64_t decoded;    /* decompressed bytes produced so far */
	bool eof;

	/*
	 * The compressed data stopped inside a gzip member or zstd frame (a
	 * "perf script | gzip" killed early): what could be decompressed is
	 * read as if the stream had ended there, and the importer warns.
	 */
	bool truncated;
	uint64_t cut_at;        /* then: the compressed bytes there were */
	/*
	 * Set by the line reader when it reaches the cut: how many complete
	 * lines came before it, and the size of the partial line after them,
	 * which it drops rather than read as a whole one (0 if none).
	 */
	bool cut_lines_known;
	uint64_t cut_lines, cut_partial;

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
/* input_open() that also opens an empty input, setting *empty (false otherwise). */
int input_open_any(struct input *in, const char *path, bool *empty, struct tf_error *err);
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
 * the end), or -1 with err set: a read error or corrupt compressed data
 * ("file.gz: corrupt gzip data: ..."). Compressed data cut short ends the
 * stream where it stops and sets in->truncated.
 */
ssize_t input_read(struct input *in, void *buf, size_t len, struct tf_error *err);

/*
 * Read the rest of the input into one new buffer (free() it): *out and
 * *out_len, the decompressed bytes. For the binary importers, which jump
 * about the whole file. A plain file's size is known and read at once;
 * anything else grows by doubling. Returns 0, or -1 with err set.
 */
int input_read_all(struct input *in, uint8_t **out, size_t *out_len, struct tf_error *err);

/* True if input_pread() works: a plain regular file. */
bool input_seekable(const struct input *in);

/*
 * Read up to len bytes at offset of a seekable input, independent of
 * input_read()'s position; safe from several threads at once. Returns the
 * count, 0 past the end, or -1 with err set.
 */
ssize_t input_pread(struct input *in, void *buf, size_t len, uint64_t offset,
		    struct tf_error *err);

/*
 * For a truncated input: "truncated gzip data: the file ends at byte 3000,
 * inside the compressed stream; kept the 812 complete lines before the cut
 * and dropped the partial line 813 (57 bytes)".
 */
void input_describe_cut(const struct input *in, struct strbuf *sb);

/* "plain", "gzip" or "zstd". */
const char *input_compression_name(enum input_compression c);

#endif /* TFLAME_INPUT_H */
