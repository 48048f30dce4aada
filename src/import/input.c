#include "config.h"

#include "tflame/input.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "tflame/error.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/* Compressed bytes are read from the file in blocks of this size. */
#define RAW_BLOCK (1024 * 1024)
/* input_peek() decompresses at least this much at a time. */
#define PEEK_CHUNK (64 * 1024)
/* The first read(), enough to tell the format (IMPORT_PROBE_BYTES). */
#define FIRST_READ (64 * 1024)

struct codec {
	z_stream zs;       /* gzip */
	ZSTD_DCtx *zd;     /* zstd */
	/*
	 * Inside a gzip member or zstd frame: running out of input now means
	 * the data was cut short, not that the stream ended.
	 */
	bool in_frame;
	/*
	 * The last call filled the whole output buffer, so the decoder may
	 * still hold output: call it again before reading more input (and
	 * before deciding that the input ended early).
	 */
	bool out_full;
	/* zip: the entry ended (deflate's end, or the stored size read) */
	bool zip_done;
	/* zip: the entry is stored, and its bytes not yet handed out */
	bool stored;
	uint64_t stored_left;
};

/* A zip entry's local header, and its flags and methods that matter. */
#define ZIP_HEADER 30
#define ZIP_ENCRYPTED 0x1
#define ZIP_SIZE_AFTER 0x8 /* sizes in a descriptor after the data */
#define ZIP_STORED 0
#define ZIP_DEFLATED 8

const char *
input_compression_name(enum input_compression c)
{
	switch (c) {
	case INPUT_PLAIN:
		return "plain";
	case INPUT_GZIP:
		return "gzip";
	case INPUT_ZSTD:
		return "zstd";
	case INPUT_ZIP:
		return "zip";
	}
	return "plain";
}

static int
read_error(struct input *in, struct tf_error *err)
{
	return tf_error_set_at(err, in->name, 0, "read error: %s", strerror(errno));
}

/* read(2) that retries on EINTR. */
static ssize_t
read_fd(int fd, void *buf, size_t len)
{
	ssize_t n;

	if (len > SSIZE_MAX)
		len = SSIZE_MAX;
	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/*
 * Read more compressed bytes into in->raw after the unread ones. Returns the
 * count, 0 at the end of the file, or -1 with err set.
 */
static ssize_t
fill_raw(struct input *in, struct tf_error *err)
{
	ssize_t n;

	if (in->raw_pos == in->raw_len)
		in->raw_pos = in->raw_len = 0;
	if (!in->raw) {
		in->raw_alloc = RAW_BLOCK;
		in->raw = xmalloc(in->raw_alloc);
	}
	if (in->raw_pos && in->raw_len == in->raw_alloc) {
		memmove(in->raw, in->raw + in->raw_pos, in->raw_len - in->raw_pos);
		in->raw_len -= in->raw_pos;
		in->raw_pos = 0;
	}
	if (in->raw_len == in->raw_alloc)
		BUG("fill_raw() with a full buffer");
	/*
	 * The first read is what detection looks at: a plain file is then read
	 * in ranges by the parser threads, and a megabyte here would only cost
	 * its page faults before any of them starts.
	 */
	n = read_fd(in->fd, in->raw + in->raw_len,
		    in->raw_read ? in->raw_alloc - in->raw_len : FIRST_READ);
	if (n < 0)
		return read_error(in, err);
	in->raw_len += (size_t)n;
	in->raw_read += (uint64_t)n;
	return n;
}

/*
 * The compressed data ended inside a member or frame: end the stream here.
 * What was decompressed so far stays good (every byte of it came from the
 * file), so it is read rather than thrown away with an error.
 */
static void
cut_short(struct input *in)
{
	struct codec *c = in->codec;

	in->truncated = true;
	in->cut_at = in->raw_read;
	c->in_frame = false;
}

static ssize_t
plain_read(struct input *in, unsigned char *buf, size_t len, struct tf_error *err)
{
	ssize_t n;

	/* The bytes read at open to look for a magic number come first. */
	if (in->raw_pos < in->raw_len) {
		n = (ssize_t)(len < in->raw_len - in->raw_pos ? len : in->raw_len - in->raw_pos);
		memcpy(buf, in->raw + in->raw_pos, (size_t)n);
		in->raw_pos += (size_t)n;
		return n;
	}
	n = read_fd(in->fd, buf, len);
	if (n < 0)
		return read_error(in, err);
	in->raw_read += (uint64_t)n;
	return n;
}

static ssize_t
gzip_read(struct input *in, unsigned char *buf, size_t len, struct tf_error *err)
{
	struct codec *c = in->codec;
	z_stream *zs = &c->zs;

	if (len > UINT_MAX)
		len = UINT_MAX;
	zs->next_out = buf;
	zs->avail_out = (uInt)len;
	while (zs->avail_out) {
		size_t produced = len - zs->avail_out;
		int ret;

		if (in->raw_pos == in->raw_len && !c->out_full) {
			ssize_t n;

			/* Hand out what we have rather than block on a pipe. */
			if (produced)
				break;
			n = fill_raw(in, err);
			if (n < 0)
				return -1;
			if (n == 0) {
				if (c->in_frame)
					cut_short(in);
				break;
			}
		}
		if (c->zip_done)
			break;
		if (!c->in_frame) {
			/* A new member: concatenated gzip files decode as one. */
			if (inflateReset(zs) != Z_OK)
				BUG("inflateReset failed");
			c->in_frame = true;
		}
		zs->next_in = in->raw + in->raw_pos;
		zs->avail_in = (uInt)(in->raw_len - in->raw_pos);
		ret = inflate(zs, Z_NO_FLUSH);
		in->raw_pos = in->raw_len - zs->avail_in;
		c->out_full = zs->avail_out == 0;
		switch (ret) {
		case Z_STREAM_END:
			c->in_frame = false;
			c->out_full = false;
			/* What follows a zip entry is the archive's directory. */
			c->zip_done = in->compression == INPUT_ZIP;
			break;
		case Z_OK:
		case Z_BUF_ERROR: /* no progress possible: needs more input */
			break;
		case Z_MEM_ERROR:
			die("out of memory (zlib)");
		default:
			return tf_error_set_at(err, in->name, 0, "corrupt %s data: %s",
					       input_compression_name(in->compression),
					       zs->msg ? zs->msg : "unknown error");
		}
	}
	return (ssize_t)(len - zs->avail_out);
}

static ssize_t
zstd_read(struct input *in, unsigned char *buf, size_t len, struct tf_error *err)
{
	struct codec *c = in->codec;
	ZSTD_outBuffer out = { buf, len, 0 };

	while (out.pos < out.size) {
		ZSTD_inBuffer zin;
		size_t ret;

		if (in->raw_pos == in->raw_len && !c->out_full) {
			ssize_t n;

			if (out.pos)
				break;
			n = fill_raw(in, err);
			if (n < 0)
				return -1;
			if (n == 0) {
				if (c->in_frame)
					cut_short(in);
				break;
			}
		}
		zin.src = in->raw;
		zin.size = in->raw_len;
		zin.pos = in->raw_pos;
		ret = ZSTD_decompressStream(c->zd, &out, &zin);
		in->raw_pos = zin.pos;
		if (ZSTD_isError(ret)) {
			if (ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation)
				die("out of memory (zstd)");
			return tf_error_set_at(err, in->name, 0, "corrupt zstd data: %s",
					       ZSTD_getErrorName(ret));
		}
		/* 0: a frame is complete and flushed; more frames may follow. */
		c->in_frame = ret != 0;
		c->out_full = out.pos == out.size;
	}
	return (ssize_t)out.pos;
}

/* A stored zip entry: its bytes as they are, and nothing after them. */
static ssize_t
stored_read(struct input *in, unsigned char *buf, size_t len, struct tf_error *err)
{
	struct codec *c = in->codec;
	ssize_t n;

	if (len > c->stored_left)
		len = (size_t)c->stored_left;
	if (!len)
		return 0;
	n = plain_read(in, buf, len, err);
	if (n == 0)
		cut_short(in);
	if (n > 0)
		c->stored_left -= (uint64_t)n;
	return n;
}

/* The next decompressed bytes, ignoring the peek buffer. */
static ssize_t
decode_read(struct input *in, unsigned char *buf, size_t len, struct tf_error *err)
{
	ssize_t n;

	if (in->eof || !len)
		return 0;
	switch (in->compression) {
	case INPUT_GZIP:
		n = gzip_read(in, buf, len, err);
		break;
	case INPUT_ZSTD:
		n = zstd_read(in, buf, len, err);
		break;
	case INPUT_ZIP:
		n = ((struct codec *)in->codec)->stored ? stored_read(in, buf, len, err)
							: gzip_read(in, buf, len, err);
		break;
	default:
		n = plain_read(in, buf, len, err);
		break;
	}
	if (n == 0)
		in->eof = true;
	if (n > 0)
		in->decoded += (uint64_t)n;
	return n;
}

static void
codec_new(struct input *in)
{
	struct codec *c = xcalloc(1, sizeof(*c));

	if (in->compression == INPUT_GZIP || in->compression == INPUT_ZIP) {
		/* 15 + 16: a gzip wrapper only; -15: raw deflate (zip) */
		int ret = inflateInit2(&c->zs, in->compression == INPUT_ZIP ? -15 : 15 + 16);

		if (ret == Z_MEM_ERROR)
			die("out of memory (zlib)");
		if (ret != Z_OK)
			BUG("inflateInit2: %d", ret);
	} else {
		c->zd = ZSTD_createDCtx();
		if (!c->zd)
			die("out of memory (zstd)");
	}
	in->codec = c;
}

static void
codec_free(struct input *in)
{
	struct codec *c = in->codec;

	if (!c)
		return;
	if (in->compression == INPUT_GZIP || in->compression == INPUT_ZIP)
		inflateEnd(&c->zs);
	else
		ZSTD_freeDCtx(c->zd);
	free(c);
	in->codec = NULL;
}

/* Tell the compression from the first bytes, never from the name. */
static enum input_compression
sniff(const unsigned char *p, size_t len)
{
	if (len >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return INPUT_GZIP;
	if (len >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
		return INPUT_ZSTD;
	if (len >= 4 && !memcmp(p, "PK\3\4", 4))
		return INPUT_ZIP;
	return INPUT_PLAIN;
}

static unsigned
le16(const unsigned char *p)
{
	return p[0] | (unsigned)p[1] << 8;
}

/*
 * Go past the local header of a zip's first entry, to its data, and set
 * the codec up for its method. Returns 0, or -1 with err set.
 */
static int
zip_open_entry(struct input *in, struct tf_error *err)
{
	struct codec *c = in->codec;
	unsigned flags, method;
	size_t header;

	while (in->raw_len < ZIP_HEADER || in->raw_len < ZIP_HEADER +
	       (size_t)le16(in->raw + 26) + le16(in->raw + 28)) {
		ssize_t n = fill_raw(in, err);

		if (n < 0)
			return -1;
		if (n == 0)
			return tf_error_set_at(err, in->name, 0, "truncated zip data: the file ends "
					       "at byte %zu, inside the first entry's header",
					       in->raw_len);
	}
	flags = le16(in->raw + 6);
	method = le16(in->raw + 8);
	header = ZIP_HEADER + le16(in->raw + 26) + le16(in->raw + 28);
	if (flags & ZIP_ENCRYPTED)
		return tf_error_set_at(err, in->name, 0, "the zip's first file is encrypted");
	if (method == ZIP_STORED) {
		const unsigned char *s = in->raw + 18;

		c->stored_left = s[0] | (uint64_t)s[1] << 8 | (uint64_t)s[2] << 16 |
				 (uint64_t)s[3] << 24;
		if (flags & ZIP_SIZE_AFTER)
			return tf_error_set_at(err, in->name, 0, "the zip's first file is stored "
					       "without its size in its header");
		c->stored = true;
	} else if (method != ZIP_DEFLATED) {
		return tf_error_set_at(err, in->name, 0, "the zip's first file is compressed with "
				       "method %u; tflame reads deflate (8) or stored (0)", method);
	}
	in->raw_pos = header;
	return 0;
}

static int
open_fd(struct input *in, const char *path, struct tf_error *err)
{
	if (!strcmp(path, "-")) {
		/* A copy, so that input_close() can close it like any other. */
		in->fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
		if (in->fd < 0)
			return tf_error_set(err, "cannot read standard input: %s",
					    strerror(errno));
		in->name = xstrdup("<stdin>");
		return 0;
	}
	do
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
	while (in->fd < 0 && errno == EINTR);
	if (in->fd < 0)
		return tf_error_set(err, "cannot open %s: %s", path, strerror(errno));
	in->name = xstrdup(path);
	return 0;
}

int
input_open(struct input *in, const char *path, struct tf_error *err)
{
	bool empty;

	if (input_open_any(in, path, &empty, err))
		return -1;
	if (empty) {
		tf_error_set_at(err, in->name, 0, "%s is empty",
				in->regular || strcmp(path, "-") ? "file" : "input");
		input_close(in);
		return -1;
	}
	return 0;
}

int
input_open_any(struct input *in, const char *path, bool *empty, struct tf_error *err)
{
	struct stat st;
	const char *data;
	size_t len;

	memset(in, 0, sizeof(*in));
	in->fd = -1;
	if (open_fd(in, path, err))
		return -1;
	if (fstat(in->fd, &st) < 0) {
		tf_error_set_at(err, in->name, 0, "cannot stat: %s", strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		tf_error_set_at(err, in->name, 0, "is a directory");
		goto fail;
	}
	if (S_ISREG(st.st_mode)) {
		in->regular = true;
		in->size = (uint64_t)st.st_size;
	}

	/* Read until the magic number is complete: a pipe may give less. */
	while (in->raw_len < 4) {
		ssize_t n = fill_raw(in, err);

		if (n < 0)
			goto fail;
		if (n == 0)
			break;
	}
	in->compression = sniff(in->raw, in->raw_len);
	if (in->compression != INPUT_PLAIN)
		codec_new(in);
	if (in->compression == INPUT_ZIP && zip_open_entry(in, err))
		goto fail;

	/* Empty means no decompressed bytes, so a gzipped empty file is too. */
	if (input_peek(in, 1, &data, &len, err))
		goto fail;
	if (!len && in->truncated) {
		tf_error_set_at(err, in->name, 0,
				"truncated %s data: the file ends at byte %" PRIu64
				", before anything could be decompressed",
				input_compression_name(in->compression), in->cut_at);
		goto fail;
	}
	*empty = !len;
	return 0;

fail:
	input_close(in);
	return -1;
}

void
input_close(struct input *in)
{
	codec_free(in);
	if (in->fd >= 0)
		close(in->fd);
	free(in->name);
	free(in->peek);
	free(in->raw);
	memset(in, 0, sizeof(*in));
	in->fd = -1;
}

int
input_peek(struct input *in, size_t want, const char **data, size_t *len,
	   struct tf_error *err)
{
	size_t have = in->peek_len - in->peek_pos;

	if (have < want && !in->eof) {
		size_t cap = want > PEEK_CHUNK ? want : PEEK_CHUNK;

		if (in->peek_pos) {
			memmove(in->peek, in->peek + in->peek_pos, have);
			in->peek_pos = 0;
			in->peek_len = have;
		}
		/* No capacity field: the buffer is sized to cap on every fill. */
		in->peek = xrealloc(in->peek, cap);
		while (in->peek_len < want) {
			ssize_t n = decode_read(in, (unsigned char *)in->peek + in->peek_len,
						cap - in->peek_len, err);

			if (n < 0)
				return -1;
			if (n == 0)
				break;
			in->peek_len += (size_t)n;
		}
		have = in->peek_len;
	}
	*data = in->peek ? in->peek + in->peek_pos : "";
	*len = have;
	return 0;
}

ssize_t
input_read(struct input *in, void *buf, size_t len, struct tf_error *err)
{
	ssize_t n;

	if (in->peek_pos < in->peek_len) {
		size_t have = in->peek_len - in->peek_pos;

		n = (ssize_t)(len < have ? len : have);
		memcpy(buf, in->peek + in->peek_pos, (size_t)n);
		in->peek_pos += (size_t)n;
		if (in->peek_pos == in->peek_len) {
			/* Probing is over: give the memory back. */
			free(in->peek);
			in->peek = NULL;
			in->peek_pos = in->peek_len = 0;
		}
	} else {
		n = decode_read(in, buf, len, err);
		if (n < 0)
			return -1;
	}
	in->offset += (uint64_t)n;
	return n;
}

void
input_describe_cut(const struct input *in, struct strbuf *sb)
{
	strbuf_addf(sb, "truncated %s data: the file ends at byte %" PRIu64
		    ", inside the compressed stream; ",
		    input_compression_name(in->compression), in->cut_at);
	if (!in->cut_lines_known) {
		strbuf_addf(sb, "kept the %" PRIu64 " byte%s decompressed before the cut",
			    in->decoded, in->decoded == 1 ? "" : "s");
		return;
	}
	strbuf_addf(sb, "kept the %" PRIu64 " complete line%s before the cut",
		    in->cut_lines, in->cut_lines == 1 ? "" : "s");
	if (in->cut_partial)
		strbuf_addf(sb, " and dropped the partial line %" PRIu64 " (%" PRIu64
			    " byte%s)", in->cut_lines + 1, in->cut_partial,
			    in->cut_partial == 1 ? "" : "s");
}

bool
input_seekable(const struct input *in)
{
	return in->regular && in->compression == INPUT_PLAIN;
}

ssize_t
input_pread(struct input *in, void *buf, size_t len, uint64_t offset,
	    struct tf_error *err)
{
	size_t done = 0;

	if (!input_seekable(in))
		BUG("input_pread() on %s, which is not a plain regular file", in->name);
	if (len > SSIZE_MAX)
		len = SSIZE_MAX;
	/* Fill the buffer unless the file ends: callers need no retry loop. */
	while (done < len) {
		ssize_t n = pread(in->fd, (char *)buf + done, len - done,
				  (off_t)(offset + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return read_error(in, err);
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	/* Several threads may read at once: the count must stay exact. */
	__atomic_fetch_add(&in->raw_read, (uint64_t)done, __ATOMIC_RELAXED);
	return (ssize_t)done;
}

/* Bytes read at a time when the size of the input is unknown. */
#define READ_ALL_BLOCK (1024 * 1024)

int
input_read_all(struct input *in, uint8_t **out, size_t *out_len, struct tf_error *err)
{
	bool known = in->compression == INPUT_PLAIN && in->regular && in->size;
	size_t cap = known ? in->size + 1 : READ_ALL_BLOCK;
	size_t len = 0;
	uint8_t *buf = xmalloc(cap);

	for (;;) {
		ssize_t r;

		/* A known size needs one byte more, to see the end. */
		if (cap - len < (known ? 1 : READ_ALL_BLOCK / 4)) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = input_read(in, buf + len, cap - len, err);
		if (r < 0) {
			free(buf);
			return -1;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	*out = buf;
	*out_len = len;
	return 0;
}
