#include "config.h"

#include "tflame/input.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* next_in points at const data here. */
#define ZLIB_CONST
#include <zlib.h>
#include <zstd.h>

#include "test_tmpdir.h"
#include "test_util.h"
#include "tflame/lines.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"



static void
write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static char *
slurp(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	FILE *f = fopen(path, "rb");
	size_t n;

	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb, len);
}

/* About 3 MiB of folded lines: more than one compressed block. */
static char *
make_text(size_t *len)
{
	struct strbuf sb = STRBUF_INIT;

	for (unsigned i = 0; sb.len < 3 * 1024 * 1024; i++)
		strbuf_addf(&sb, "main;work_%u;leaf_%u %u\n", i % 97, i % 1013, i % 7 + 1);
	return strbuf_detach(&sb, len);
}

static void
write_gzip(const char *path, const char *data, size_t len)
{
	gzFile gz = gzopen(path, "wb6");

	assert_non_null(gz);
	while (len) {
		unsigned n = len > 100000 ? 100000 : (unsigned)len;

		assert_int_equal(gzwrite(gz, data, n), (int)n);
		data += n;
		len -= n;
	}
	assert_int_equal(gzclose(gz), Z_OK);
}

static char *
zstd_bytes(const char *data, size_t len, size_t *out_len)
{
	size_t cap = ZSTD_compressBound(len);
	char *out = xmalloc(cap);
	size_t n = ZSTD_compress(out, cap, data, len, 3);

	assert_false(ZSTD_isError(n));
	*out_len = n;
	return out;
}

/* Read the rest of in into a strbuf in odd-sized pieces. */
static int
read_all(struct input *in, struct strbuf *out, struct tf_error *err)
{
	char *buf = xmalloc(300007);

	for (;;) {
		ssize_t n = input_read(in, buf, 300007, err);

		if (n < 0) {
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		strbuf_add(out, buf, (size_t)n);
	}
	free(buf);
	return 0;
}

/* Open path and expect it to read back as exactly data. */
static void
expect_contents(const char *path, const char *data, size_t len,
		enum input_compression comp)
{
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct input in;

	if (input_open(&in, path, &err))
		fail_msg("%s", tf_error_text(&err));
	assert_int_equal(in.compression, comp);
	if (read_all(&in, &sb, &err))
		fail_msg("%s", tf_error_text(&err));
	assert_int_equal(sb.len, len);
	assert_memory_equal(sb.buf, data, len);
	assert_int_equal(in.offset, len);
	assert_true(in.eof);
	/* The end is sticky. */
	assert_int_equal(input_read(&in, sb.buf, 1, &err), 0);
	input_close(&in);
	strbuf_release(&sb);
	tf_error_release(&err);
}

/* Open path, read it all and expect the error text want. */
static void
expect_read_error(const char *path, const char *want, bool prefix)
{
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct input in;
	int r = input_open(&in, path, &err);

	if (!r) {
		r = read_all(&in, &sb, &err);
		input_close(&in);
	}
	assert_int_equal(r, -1);
	if (prefix)
		assert_memory_equal(tf_error_text(&err), want, strlen(want));
	else
		assert_string_equal(tf_error_text(&err), want);
	strbuf_release(&sb);
	tf_error_release(&err);
}

static void
test_plain(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct input in;
	size_t len;
	char *data = make_text(&len);
	const char *path = tmpdir_path(state, "plain.txt");

	write_file(path, data, len);
	expect_contents(path, data, len, INPUT_PLAIN);

	assert_int_equal(input_open(&in, path, &err), 0);
	assert_string_equal(in.name, path);
	assert_true(in.regular);
	assert_true(input_seekable(&in));
	assert_int_equal(in.size, len);
	assert_string_equal(input_compression_name(in.compression), "plain");
	input_close(&in);
	assert_int_equal(in.fd, -1);
	free(data);
	tf_error_release(&err);
}

static void
test_peek_then_read(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct input in;
	const char *p;
	size_t len, plen;
	char *data = make_text(&len);
	const char *path = tmpdir_path(state, "peek.txt.gz");

	write_gzip(path, data, len);
	assert_int_equal(input_open(&in, path, &err), 0);
	assert_int_equal(input_peek(&in, 10, &p, &plen, &err), 0);
	assert_true(plen >= 10);
	assert_memory_equal(p, data, 10);
	/* A bigger peek still starts at the beginning. */
	assert_int_equal(input_peek(&in, 200000, &p, &plen, &err), 0);
	assert_true(plen >= 200000);
	assert_memory_equal(p, data, 200000);
	assert_int_equal(in.offset, 0);
	/* A read takes a little, a peek then starts after it. */
	{
		char head[5];

		assert_int_equal(input_read(&in, head, 5, &err), 5);
		assert_memory_equal(head, data, 5);
		strbuf_add(&sb, head, 5);
	}
	assert_int_equal(input_peek(&in, 100, &p, &plen, &err), 0);
	assert_memory_equal(p, data + 5, 100);
	assert_int_equal(read_all(&in, &sb, &err), 0);
	assert_int_equal(sb.len, len);
	assert_memory_equal(sb.buf, data, len);
	/* Peeking at the end gives nothing, not an error. */
	assert_int_equal(input_peek(&in, 100, &p, &plen, &err), 0);
	assert_int_equal(plen, 0);
	input_close(&in);

	/* A peek bigger than the whole input. */
	path = tmpdir_path(state, "small.txt");
	write_file(path, "a;b 1\n", 6);
	assert_int_equal(input_open(&in, path, &err), 0);
	assert_int_equal(input_peek(&in, 65536, &p, &plen, &err), 0);
	assert_int_equal(plen, 6);
	assert_memory_equal(p, "a;b 1\n", 6);
	strbuf_reset(&sb);
	assert_int_equal(read_all(&in, &sb, &err), 0);
	assert_string_equal(sb.buf, "a;b 1\n");
	input_close(&in);

	strbuf_release(&sb);
	free(data);
	tf_error_release(&err);
}

/*
 * A zip archive of one file holding data: deflated (method 8, with its
 * sizes in a descriptor after the data when size_after) or stored
 * (method 0), then a central directory, which the reader must not read
 * as data. flags and method go into the local header as given.
 */
static char *
zip_bytes(const char *data, size_t len, unsigned method, unsigned flags, size_t *out_len)
{
	char *copy = xmalloc(len + 1); /* zlib's next_in is not const */
	struct strbuf sb = STRBUF_INIT;
	unsigned char h[30] = { 'P', 'K', 3, 4, 20, 0 };
	uLong crc = crc32(0, (const Bytef *)data, (uInt)len);
	size_t body = sb.len;

	h[6] = flags & 0xff;
	h[7] = flags >> 8;
	h[8] = method & 0xff;
	h[26] = 6; /* the name: "a.json" */
	strbuf_add(&sb, h, sizeof(h));
	strbuf_addstr(&sb, "a.json");
	body = sb.len;
	if (method == 8) {
		z_stream zs = { 0 };
		size_t cap = deflateBound(&zs, len) + 64;

		assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
		strbuf_grow(&sb, cap);
		memcpy(copy, data, len);
		zs.next_in = (Bytef *)copy;
		zs.avail_in = (uInt)len;
		zs.next_out = (Bytef *)sb.buf + sb.len;
		zs.avail_out = (uInt)cap;
		assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
		strbuf_setlen(&sb, sb.len + zs.total_out);
		deflateEnd(&zs);
	} else {
		strbuf_add(&sb, data, len);
	}
	/* The sizes and CRC, in the header or after the data. */
	{
		uint32_t v[3] = { (uint32_t)crc, (uint32_t)(sb.len - body), (uint32_t)len };
		unsigned char *at = (unsigned char *)sb.buf + 14;
		unsigned char d[16] = { 'P', 'K', 7, 8 };

		for (int i = 0; i < 12; i++)
			(flags & 8 ? d + 4 : at)[i] = (unsigned char)(v[i / 4] >> (8 * (i % 4)));
		if (flags & 8)
			strbuf_add(&sb, d, sizeof(d));
	}
	strbuf_addstr(&sb, "PK\1\2 a central directory, not data");
	free(copy);
	*out_len = sb.len;
	return strbuf_detach(&sb, NULL);
}

static void
test_zip(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	size_t len, zlen;
	char *data = make_text(&len), *z;
	const char *path = tmpdir_path(state, "data.zip");
	struct input in;

	/* Deflated, with a data descriptor (as zip - writes it); stored. */
	z = zip_bytes(data, len, 8, 8, &zlen);
	write_file(path, z, zlen);
	expect_contents(path, data, len, INPUT_ZIP);
	assert_string_equal(input_compression_name(INPUT_ZIP), "zip");

	/* Cut inside the deflated data: what came before, and a warning. */
	write_file(path, z, zlen / 2);
	assert_int_equal(input_open(&in, path, &err), 0);
	assert_int_equal(read_all(&in, &sb, &err), 0);
	assert_true(in.truncated);
	assert_true(sb.len > 0 && sb.len < len);
	assert_memory_equal(sb.buf, data, sb.len);
	input_close(&in);
	free(z);

	z = zip_bytes(data, 1000, 0, 0, &zlen);
	write_file(path, z, zlen);
	expect_contents(path, data, 1000, INPUT_ZIP);
	free(z);

	/* What it cannot read, said plainly. */
	strbuf_reset(&sb);
	z = zip_bytes(data, 1000, 0, 8, &zlen);
	write_file(path, z, zlen);
	strbuf_addf(&sb, "%s: the zip's first file is stored without its size in its header", path);
	expect_read_error(path, sb.buf, false);
	free(z);
	strbuf_reset(&sb);
	z = zip_bytes(data, 1000, 12, 0, &zlen);
	write_file(path, z, zlen);
	strbuf_addf(&sb, "%s: the zip's first file is compressed with method 12; tflame reads "
		    "deflate (8) or stored (0)", path);
	expect_read_error(path, sb.buf, false);
	strbuf_reset(&sb);
	z[6] = 1;
	write_file(path, z, zlen);
	strbuf_addf(&sb, "%s: the zip's first file is encrypted", path);
	expect_read_error(path, sb.buf, false);
	strbuf_reset(&sb);
	write_file(path, z, 20);
	strbuf_addf(&sb, "%s: truncated zip data: the file ends at byte 20, inside the first "
		    "entry's header", path);
	expect_read_error(path, sb.buf, false);
	free(z);

	strbuf_release(&sb);
	tf_error_release(&err);
	free(data);
}

static void
test_gzip(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct input in;
	size_t len, zlen;
	char *data = make_text(&len), *z;
	const char *path = tmpdir_path(state, "data.gz");

	write_gzip(path, data, len);
	expect_contents(path, data, len, INPUT_GZIP);

	/* The name has nothing to do with it: a gzip file called .txt. */
	z = slurp(path, &zlen);
	path = tmpdir_path(state, "gzip-really.txt");
	write_file(path, z, zlen);
	assert_int_equal(input_open(&in, path, &err), 0);
	assert_int_equal(in.compression, INPUT_GZIP);
	assert_false(input_seekable(&in));
	assert_string_equal(input_compression_name(in.compression), "gzip");
	{
		struct strbuf sb = STRBUF_INIT;

		assert_int_equal(read_all(&in, &sb, &err), 0);
		assert_int_equal(sb.len, len);
		strbuf_release(&sb);
	}
	/* Progress counts the compressed bytes. */
	assert_int_equal(in.raw_read, zlen);
	input_close(&in);
	free(z);
	free(data);
	tf_error_release(&err);
}

static void
test_gzip_members(void **state)
{
	struct strbuf all = STRBUF_INIT;
	size_t len, alen, blen;
	char *data = make_text(&len), *a, *b;
	size_t half = len / 3;
	const char *path;

	write_gzip(tmpdir_path(state, "a.gz"), data, half);
	write_gzip(tmpdir_path(state, "b.gz"), data + half, len - half);
	a = slurp(tmpdir_path(state, "a.gz"), &alen);
	b = slurp(tmpdir_path(state, "b.gz"), &blen);
	strbuf_add(&all, a, alen);
	strbuf_add(&all, b, blen);
	/* A third, tiny member: cat a.gz b.gz c.gz > all.gz. */
	strbuf_add(&all, a, alen);
	path = tmpdir_path(state, "all.gz");
	write_file(path, all.buf, all.len);
	{
		struct strbuf want = STRBUF_INIT;

		strbuf_add(&want, data, len);
		strbuf_add(&want, data, half);
		expect_contents(path, want.buf, want.len, INPUT_GZIP);
		strbuf_release(&want);
	}
	strbuf_release(&all);
	free(a);
	free(b);
	free(data);
}

/*
 * Open a compressed file of file_len bytes, cut short, read it all, and
 * expect a prefix of data (all of it when at_least is len) with no error
 * and the cut recorded. Returns how much was read.
 */
static size_t
expect_cut(const char *path, const char *data, size_t len, size_t file_len,
	   size_t at_least)
{
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT, note = STRBUF_INIT, want = STRBUF_INIT;
	struct input in;
	size_t got;

	if (input_open(&in, path, &err))
		fail_msg("%s", tf_error_text(&err));
	if (read_all(&in, &sb, &err))
		fail_msg("%s", tf_error_text(&err));
	got = sb.len;
	assert_true(got >= at_least && got <= len);
	assert_memory_equal(sb.buf, data, got);
	assert_true(in.truncated);
	assert_int_equal(in.cut_at, file_len);
	assert_int_equal(in.decoded, got);
	assert_int_equal(input_read(&in, sb.buf, 1, &err), 0);

	/* No line reader ran: the note counts bytes. */
	input_describe_cut(&in, &note);
	strbuf_addf(&want, "truncated %s data: the file ends at byte %zu, inside the "
		    "compressed stream; kept the %zu bytes decompressed before the cut",
		    input_compression_name(in.compression), file_len, got);
	assert_string_equal(note.buf, want.buf);
	input_close(&in);
	strbuf_release(&sb);
	strbuf_release(&note);
	strbuf_release(&want);
	tf_error_release(&err);
	return got;
}

static void
test_gzip_truncated(void **state)
{
	struct strbuf want = STRBUF_INIT;
	size_t len, zlen, half;
	char *data = make_text(&len), *z;
	const char *path = tmpdir_path(state, "cut.gz");

	write_gzip(tmpdir_path(state, "full.gz"), data, len);
	z = slurp(tmpdir_path(state, "full.gz"), &zlen);

	/* The header alone, or a little more: nothing to read is still an error. */
	write_file(path, z, 3);
	strbuf_addf(&want, "%s: truncated gzip data: the file ends at byte 3, "
		    "before anything could be decompressed", path);
	expect_read_error(path, want.buf, false);
	write_file(path, z, 10);
	strbuf_reset(&want);
	strbuf_addf(&want, "%s: truncated gzip data: the file ends at byte 10, "
		    "before anything could be decompressed", path);
	expect_read_error(path, want.buf, false);

	/* Cut in the data: what came before reads; more of the file, more data. */
	write_file(path, z, 1000);
	half = expect_cut(path, data, len, 1000, 1);
	write_file(path, z, zlen / 2);
	assert_true(expect_cut(path, data, len, zlen / 2, half + 1) < len);

	/* Cut in the trailer: all the data, but its checksum is missing. */
	write_file(path, z, zlen - 4);
	expect_cut(path, data, len, zlen - 4, len);
	write_file(path, z, zlen - 1);
	expect_cut(path, data, len, zlen - 1, len);
	strbuf_release(&want);
	free(z);
	free(data);
}

/*
 * A gzip file cut in the middle of a line, read by lines: the complete
 * lines are all there, and the partial one is dropped and counted.
 */
static void
test_gzip_truncated_lines(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf note = STRBUF_INIT, want = STRBUF_INIT;
	struct line_reader lr;
	struct input in;
	const char *line, *prev_end = NULL;
	size_t len, zlen, n, complete;
	uint64_t count = 0;
	char *data = make_text(&len), *z;
	const char *path = tmpdir_path(state, "lines.gz");

	write_gzip(tmpdir_path(state, "full.gz"), data, len);
	z = slurp(tmpdir_path(state, "full.gz"), &zlen);
	write_file(path, z, zlen / 3);
	assert_int_equal(input_open(&in, path, &err), 0);
	line_reader_init(&lr, &in);
	while (line_reader_next(&lr, &line, &n, &err) > 0) {
		count++;
		/* Every line handed out is whole: it ends where the data has "\n". */
		assert_true(lr.bytes <= len);
		assert_int_equal(data[lr.bytes - 1], '\n');
		prev_end = data + lr.bytes;
	}
	assert_non_null(prev_end);
	complete = (size_t)(prev_end - data);
	assert_true(in.truncated);
	assert_true(in.cut_lines_known);
	assert_int_equal(in.cut_lines, count);
	/* The stream went on past the last newline: those bytes were the partial line. */
	assert_int_equal(in.cut_partial, in.decoded - complete);
	assert_memory_equal(data + complete - 1, "\n", 1);
	assert_int_equal(lr.bytes, in.decoded);

	input_describe_cut(&in, &note);
	if (in.cut_partial)
		strbuf_addf(&want, "truncated gzip data: the file ends at byte %zu, inside the "
			    "compressed stream; kept the %" PRIu64 " complete lines before "
			    "the cut and dropped the partial line %" PRIu64 " (%" PRIu64
			    " bytes)", zlen / 3, count, count + 1, in.cut_partial);
	else
		strbuf_addf(&want, "truncated gzip data: the file ends at byte %zu, inside the "
			    "compressed stream; kept the %" PRIu64 " complete lines before "
			    "the cut", zlen / 3, count);
	assert_string_equal(note.buf, want.buf);
	line_reader_release(&lr);
	input_close(&in);
	strbuf_release(&note);
	strbuf_release(&want);
	tf_error_release(&err);
	free(z);
	free(data);
}

static void
test_gzip_corrupt(void **state)
{
	struct strbuf want = STRBUF_INIT;
	size_t len, zlen;
	char *data = make_text(&len), *z;
	const char *path = tmpdir_path(state, "bad.gz");

	write_gzip(tmpdir_path(state, "good.gz"), data, len);
	z = slurp(tmpdir_path(state, "good.gz"), &zlen);

	/* A wrong CRC in the trailer: only the check can tell. */
	z[zlen - 8] ^= 0x55;
	write_file(path, z, zlen);
	strbuf_addf(&want, "%s: corrupt gzip data: incorrect data check", path);
	expect_read_error(path, want.buf, false);
	z[zlen - 8] ^= 0x55;

	/* A wrong compression method in the header. */
	z[2] = 7;
	write_file(path, z, zlen);
	strbuf_reset(&want);
	strbuf_addf(&want, "%s: corrupt gzip data: unknown compression method", path);
	expect_read_error(path, want.buf, false);
	z[2] = 8;

	/* Garbage after a member is not another member. */
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_add(&sb, z, zlen);
		strbuf_addstr(&sb, "trailing junk");
		write_file(path, sb.buf, sb.len);
		strbuf_reset(&want);
		strbuf_addf(&want, "%s: corrupt gzip data: ", path);
		expect_read_error(path, want.buf, true);
		strbuf_release(&sb);
	}
	strbuf_release(&want);
	free(z);
	free(data);
}

static void
test_gzip_empty_content(void **state)
{
	struct strbuf want = STRBUF_INIT;
	const char *path = tmpdir_path(state, "empty.gz");

	write_gzip(path, "", 0);
	strbuf_addf(&want, "%s: file is empty", path);
	expect_read_error(path, want.buf, false);
	strbuf_release(&want);
}

static void
test_zstd(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf two = STRBUF_INIT, want = STRBUF_INIT;
	struct input in;
	size_t len, zlen;
	char *data = make_text(&len);
	char *z = zstd_bytes(data, len, &zlen);
	const char *path = tmpdir_path(state, "data.zst");

	write_file(path, z, zlen);
	expect_contents(path, data, len, INPUT_ZSTD);
	assert_int_equal(input_open(&in, path, &err), 0);
	assert_string_equal(input_compression_name(in.compression), "zstd");
	assert_false(input_seekable(&in));
	input_close(&in);

	/* Two frames back to back read as one stream. */
	strbuf_add(&two, z, zlen);
	strbuf_add(&two, z, zlen);
	path = tmpdir_path(state, "two.zst");
	write_file(path, two.buf, two.len);
	strbuf_reset(&two);
	strbuf_add(&two, data, len);
	strbuf_add(&two, data, len);
	expect_contents(path, two.buf, two.len, INPUT_ZSTD);

	/*
	 * Cut short: in the header (nothing to read), in the middle, before
	 * the last byte. zstd hands out whole blocks, so the last one is lost.
	 */
	path = tmpdir_path(state, "cut.zst");
	strbuf_addf(&want, "%s: truncated zstd data: the file ends at byte 6, "
		    "before anything could be decompressed", path);
	write_file(path, z, 6);
	expect_read_error(path, want.buf, false);
	write_file(path, z, zlen / 2);
	expect_cut(path, data, len, zlen / 2, 1);
	write_file(path, z, zlen - 1);
	assert_true(expect_cut(path, data, len, zlen - 1, len / 2) < len);

	/* A reserved bit set in the frame header. */
	path = tmpdir_path(state, "bad.zst");
	z[4] |= 0x08;
	write_file(path, z, zlen);
	strbuf_reset(&want);
	strbuf_addf(&want, "%s: corrupt zstd data: ", path);
	expect_read_error(path, want.buf, true);

	strbuf_release(&two);
	strbuf_release(&want);
	free(z);
	free(data);
	tf_error_release(&err);
}

static void
test_open_errors(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf want = STRBUF_INIT;
	struct input in;
	const char *path;

	path = tmpdir_path(state, "empty.txt");
	write_file(path, "", 0);
	strbuf_addf(&want, "%s: file is empty", path);
	expect_read_error(path, want.buf, false);

	path = tmpdir_path(state, "missing.txt");
	strbuf_reset(&want);
	strbuf_addf(&want, "cannot open %s: No such file or directory", path);
	expect_read_error(path, want.buf, false);
	/* A failed open leaves nothing to close. */
	assert_int_equal(input_open(&in, path, &err), -1);
	assert_int_equal(in.fd, -1);
	assert_null(in.name);

	path = tmpdir_path(state, "subdir");
	assert_int_equal(mkdir(path, 0700), 0);
	strbuf_reset(&want);
	strbuf_addf(&want, "%s: is a directory", path);
	expect_read_error(path, want.buf, false);

	strbuf_release(&want);
	tf_error_release(&err);
}

static void
test_unreadable(void **state)
{
	struct strbuf want = STRBUF_INIT;
	const char *path = tmpdir_path(state, "secret.txt");

	/* root reads anything: nothing to test then. */
	if (geteuid() == 0)
		skip();
	write_file(path, "a 1\n", 4);
	assert_int_equal(chmod(path, 0), 0);
	strbuf_addf(&want, "cannot open %s: Permission denied", path);
	expect_read_error(path, want.buf, false);
	strbuf_release(&want);
}

struct writer {
	const char *path;
	const char *data;
	size_t len;
	size_t chunk;
};

/* Write to a FIFO in small chunks, as a slow producer would. */
static void *
fifo_writer(void *arg)
{
	struct writer *w = arg;
	int fd = open(w->path, O_WRONLY);
	size_t done = 0;

	if (fd < 0)
		return NULL;
	while (done < w->len) {
		/*
		 * The first bytes one at a time and slowly, so the reader
		 * sees the magic number arrive in pieces.
		 */
		size_t chunk = done < 4 ? 1 : w->chunk;
		size_t n = w->len - done < chunk ? w->len - done : chunk;
		ssize_t r;

		if (done < 4)
			nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
		r = write(fd, w->data + done, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		done += (size_t)r;
	}
	close(fd);
	return NULL;
}

static void
fifo_roundtrip(const char *path, const char *bytes, size_t blen, const char *want,
	       size_t wlen, enum input_compression comp)
{
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct writer w = { path, bytes, blen, 4099 };
	struct input in;
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, fifo_writer, &w), 0);
	assert_int_equal(input_open(&in, path, &err), 0);
	assert_false(in.regular);
	assert_false(input_seekable(&in));
	assert_int_equal(in.size, 0);
	assert_int_equal(in.compression, comp);
	assert_int_equal(read_all(&in, &sb, &err), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(sb.len, wlen);
	assert_memory_equal(sb.buf, want, wlen);
	assert_int_equal(in.raw_read, blen);
	input_close(&in);
	strbuf_release(&sb);
	tf_error_release(&err);
}

static void
test_fifo(void **state)
{
	size_t len, zlen;
	char *data = make_text(&len), *z;
	const char *path = tmpdir_path(state, "fifo");

	assert_int_equal(mkfifo(path, 0600), 0);
	fifo_roundtrip(path, data, len, data, len, INPUT_PLAIN);

	write_gzip(tmpdir_path(state, "fifo.gz"), data, len);
	z = slurp(tmpdir_path(state, "fifo.gz"), &zlen);
	path = tmpdir_path(state, "fifo");
	fifo_roundtrip(path, z, zlen, data, len, INPUT_GZIP);
	free(z);

	z = zstd_bytes(data, len, &zlen);
	fifo_roundtrip(path, z, zlen, data, len, INPUT_ZSTD);
	free(z);
	free(data);
}

static void
test_fifo_empty(void **state)
{
	struct strbuf want = STRBUF_INIT;
	struct writer w = { NULL, "", 0, 1 };
	const char *path = tmpdir_path(state, "fifo-empty");
	pthread_t t;

	assert_int_equal(mkfifo(path, 0600), 0);
	w.path = path;
	assert_int_equal(pthread_create(&t, NULL, fifo_writer, &w), 0);
	strbuf_addf(&want, "%s: file is empty", path);
	expect_read_error(path, want.buf, false);
	assert_int_equal(pthread_join(t, NULL), 0);
	strbuf_release(&want);
}

/*
 * Data that compresses a thousandfold, read in small pieces: the decoder
 * often holds output it could not hand out after the input is used up, and
 * must give it before the end counts as the end.
 */
static void
test_pending_output(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	size_t len = 4 * 1024 * 1024 + 3, zlen;
	char *data = xmalloc(len), *z, buf[1000];
	struct input in;
	ssize_t n;
	char *paths[2];

	for (size_t i = 0; i < len; i++)
		data[i] = i % 4096 ? 'x' : '\n';
	paths[0] = xstrdup(tmpdir_path(state, "zeros.gz"));
	write_gzip(paths[0], data, len);
	z = zstd_bytes(data, len, &zlen);
	paths[1] = xstrdup(tmpdir_path(state, "zeros.zst"));
	write_file(paths[1], z, zlen);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(input_open(&in, paths[i], &err), 0);
		strbuf_reset(&sb);
		while ((n = input_read(&in, buf, sizeof(buf), &err)) > 0)
			strbuf_add(&sb, buf, (size_t)n);
		if (n < 0)
			fail_msg("%s", tf_error_text(&err));
		assert_int_equal(sb.len, len);
		assert_memory_equal(sb.buf, data, len);
		input_close(&in);
		free(paths[i]);
	}
	strbuf_release(&sb);
	free(z);
	free(data);
	tf_error_release(&err);
}

struct streamer {
	const char *path;
	const char *first, *second; /* written with a pause between them */
	size_t first_len, second_len;
	atomic_size_t got;          /* decompressed bytes the reader has */
	size_t want;                /* ... before the second part is written */
	atomic_int stalled;         /* the reader did not get them in time */
};

static void
write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t r = write(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return;
		p += r;
		len -= (size_t)r;
	}
}

static void *
stream_writer(void *arg)
{
	struct streamer *s = arg;
	int fd = open(s->path, O_WRONLY);

	if (fd < 0)
		return NULL;
	write_all(fd, s->first, s->first_len);
	/* Wait (at most 3 s) for the reader to see all of the first part. */
	for (int i = 0; i < 300 && atomic_load(&s->got) < s->want; i++)
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	if (atomic_load(&s->got) < s->want)
		atomic_store(&s->stalled, 1);
	write_all(fd, s->second, s->second_len);
	close(fd);
	return NULL;
}

/*
 * A producer that writes part of a stream and waits (perf record | tflame):
 * what has arrived must be readable before the rest comes, for plain,
 * gzip (one member per part) and zstd (one frame per part) input.
 */
static void
test_fifo_streaming(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	static const char part1[] = "a;b 1\na;c 2\n", part2[] = "d 3\n";
	char *path = xstrdup(tmpdir_path(state, "stream"));
	char *gz[2], *zs[2];
	size_t gzlen[2], zslen[2];

	assert_int_equal(mkfifo(path, 0600), 0);
	for (int i = 0; i < 2; i++) {
		const char *part = i ? part2 : part1;
		size_t plen = strlen(part);

		write_gzip(tmpdir_path(state, "part.gz"), part, plen);
		gz[i] = slurp(tmpdir_path(state, "part.gz"), &gzlen[i]);
		zs[i] = zstd_bytes(part, plen, &zslen[i]);
	}
	for (int mode = 0; mode < 3; mode++) {
		struct streamer s = { 0 };
		struct input in;
		pthread_t t;
		char buf[65536];
		ssize_t n;

		s.path = path;
		s.want = strlen(part1);
		if (mode == 0) {
			s.first = part1, s.first_len = strlen(part1);
			s.second = part2, s.second_len = strlen(part2);
		} else if (mode == 1) {
			s.first = gz[0], s.first_len = gzlen[0];
			s.second = gz[1], s.second_len = gzlen[1];
		} else {
			s.first = zs[0], s.first_len = zslen[0];
			s.second = zs[1], s.second_len = zslen[1];
		}
		assert_int_equal(pthread_create(&t, NULL, stream_writer, &s), 0);
		assert_int_equal(input_open(&in, path, &err), 0);
		strbuf_reset(&sb);
		while ((n = input_read(&in, buf, sizeof(buf), &err)) > 0) {
			strbuf_add(&sb, buf, (size_t)n);
			atomic_store(&s.got, sb.len);
		}
		assert_int_equal(n, 0);
		assert_int_equal(pthread_join(t, NULL), 0);
		input_close(&in);
		assert_string_equal(sb.buf, "a;b 1\na;c 2\nd 3\n");
		if (atomic_load(&s.stalled))
			fail_msg("mode %d: the reader waited for more input with output in hand",
				 mode);
	}
	for (int i = 0; i < 2; i++) {
		free(gz[i]);
		free(zs[i]);
	}
	free(path);
	strbuf_release(&sb);
	tf_error_release(&err);
}

/* How many bytes a decoder given all of z[0..k) can hand out: a reference. */
struct ref_decoder {
	bool is_zstd;
	z_stream zs;
	ZSTD_DCtx *zd;
	char *out;
	size_t out_len, total;
};

static void
ref_feed(struct ref_decoder *r, const char *byte)
{
	if (r->is_zstd) {
		ZSTD_inBuffer zin = { byte, 1, 0 };

		while (zin.pos < zin.size) {
			ZSTD_outBuffer zout = { r->out + r->total, r->out_len - r->total, 0 };
			size_t ret = ZSTD_decompressStream(r->zd, &zout, &zin);

			assert_false(ZSTD_isError(ret));
			r->total += zout.pos;
		}
	} else {
		int ret;

		r->zs.next_in = (const unsigned char *)byte;
		r->zs.avail_in = 1;
		r->zs.next_out = (unsigned char *)r->out + r->total;
		r->zs.avail_out = (uInt)(r->out_len - r->total);
		ret = inflate(&r->zs, Z_NO_FLUSH);
		assert_true(ret == Z_OK || ret == Z_STREAM_END || ret == Z_BUF_ERROR);
		r->total = r->out_len - r->zs.avail_out;
	}
}

/*
 * Feed z one byte at a time through a non-blocking pipe and, after each
 * byte, read until the pipe is empty: everything the bytes so far can
 * decode to must have come out. A decoder that held back output until more
 * input came would stall a live pipe (perf record | tflame).
 */
static void
drain_check(const char *z, size_t zlen, bool is_zstd, const char *data, size_t len)
{
	struct tf_error err = TF_ERROR_INIT;
	struct ref_decoder ref = { 0 };
	struct strbuf path = STRBUF_INIT;
	struct input in;
	char *got = xmalloc(len + 1);
	size_t k = 0, have = 0;
	int p[2];

	ref.is_zstd = is_zstd;
	ref.out = xmalloc(len + 1);
	ref.out_len = len + 1;
	if (is_zstd)
		ref.zd = ZSTD_createDCtx();
	else
		assert_int_equal(inflateInit2(&ref.zs, 15 + 16), Z_OK);
	assert_int_equal(pipe(p), 0);
	/* input_open() blocks until one decompressed byte is there. */
	while (ref.total == 0 || k < 4) {
		assert_int_equal(write(p[1], z + k, 1), 1);
		ref_feed(&ref, z + k++);
	}
	strbuf_addf(&path, "/dev/fd/%d", p[0]);
	assert_int_equal(input_open(&in, path.buf, &err), 0);
	assert_int_equal(fcntl(in.fd, F_SETFL, O_NONBLOCK), 0);
	for (;;) {
		ssize_t n;

		while ((n = input_read(&in, got + have, 100, &err)) > 0)
			have += (size_t)n;
		if (k == zlen && n == 0)
			break;
		/* Not the end: the pipe is empty for now. */
		assert_int_equal(n, -1);
		assert_non_null(strstr(tf_error_text(&err), "Resource temporarily unavailable"));
		if (have != ref.total)
			fail_msg("%s after %zu of %zu bytes: %zu decoded, %zu expected",
				 is_zstd ? "zstd" : "gzip", k, zlen, have, ref.total);
		if (k < zlen) {
			assert_int_equal(write(p[1], z + k, 1), 1);
			ref_feed(&ref, z + k++);
		}
		if (k == zlen)
			close(p[1]);
	}
	assert_int_equal(have, len);
	assert_memory_equal(got, data, len);
	input_close(&in);
	close(p[0]);
	if (is_zstd)
		ZSTD_freeDCtx(ref.zd);
	else
		inflateEnd(&ref.zs);
	free(ref.out);
	free(got);
	strbuf_release(&path);
	tf_error_release(&err);
}

static void
test_pipe_drain(void **state)
{
	size_t len = 256 * 1024, zlen;
	char *data = xmalloc(len), *z;
	const char *path = tmpdir_path(state, "drain.gz");

	for (size_t i = 0; i < len; i++)
		data[i] = i % 777 ? (char)('a' + i % 3) : '\n';
	write_gzip(path, data, len);
	z = slurp(path, &zlen);
	drain_check(z, zlen, false, data, len);
	free(z);
	z = zstd_bytes(data, len, &zlen);
	drain_check(z, zlen, true, data, len);
	free(z);
	free(data);
}

struct preader {
	struct input *in;
	const char *data;
	size_t len;
	unsigned seed;
	int bad;
};

static void *
pread_worker(void *arg)
{
	struct preader *p = arg;
	struct tf_error err = TF_ERROR_INIT;
	char buf[8192];

	for (int i = 0; i < 500; i++) {
		size_t off, n;
		ssize_t r;

		p->seed = p->seed * 1103515245 + 12345;
		off = (p->seed >> 8) % (p->len + 100);
		n = (p->seed >> 4) % sizeof(buf);
		r = input_pread(p->in, buf, n, off, &err);
		if (off >= p->len) {
			p->bad += r != 0;
			continue;
		}
		if (n > p->len - off)
			n = p->len - off;
		if (r != (ssize_t)n || memcmp(buf, p->data + off, n))
			p->bad++;
	}
	tf_error_release(&err);
	return NULL;
}

static void
test_pread(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct preader pr[4];
	pthread_t t[4];
	struct input in;
	char buf[16];
	size_t len;
	char *data = make_text(&len);
	const char *path = tmpdir_path(state, "pread.txt");

	write_file(path, data, len);
	assert_int_equal(input_open(&in, path, &err), 0);
	assert_true(input_seekable(&in));
	assert_int_equal(input_pread(&in, buf, 10, 5, &err), 10);
	assert_memory_equal(buf, data + 5, 10);
	/* The last bytes, then nothing past the end. */
	assert_int_equal(input_pread(&in, buf, 16, len - 3, &err), 3);
	assert_memory_equal(buf, data + len - 3, 3);
	assert_int_equal(input_pread(&in, buf, 16, len, &err), 0);
	/* pread() does not move input_read()'s position. */
	assert_int_equal(input_read(&in, buf, 4, &err), 4);
	assert_memory_equal(buf, data, 4);

	for (int i = 0; i < 4; i++) {
		pr[i] = (struct preader){ &in, data, len, (unsigned)i * 7919 + 1, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, pread_worker, &pr[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(pr[i].bad, 0);
	}
	input_close(&in);
	free(data);
	tf_error_release(&err);
}

static void
test_line_readers(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct line_reader lr;
	struct input in;
	const char *line;
	size_t len, n;
	uint64_t count = 0, want = 0;
	char *data = make_text(&len);
	const char *path = tmpdir_path(state, "lines.gz");

	for (size_t i = 0; i < len; i++)
		want += data[i] == '\n';
	/* Lines of a compressed input. */
	write_gzip(path, data, len);
	assert_int_equal(input_open(&in, path, &err), 0);
	line_reader_init(&lr, &in);
	while (line_reader_next(&lr, &line, &n, &err) > 0)
		count++;
	assert_int_equal(count, want);
	assert_int_equal(lr.bytes, len);
	line_reader_release(&lr);
	input_close(&in);

	/* Lines of a byte range of a plain file, as a parser thread reads them. */
	path = tmpdir_path(state, "lines.txt");
	write_file(path, data, len);
	assert_int_equal(input_open(&in, path, &err), 0);
	{
		const char *mid = memchr(data + len / 2, '\n', len / 2);
		uint64_t start = (uint64_t)(mid + 1 - data), end = len;
		uint64_t wanted = 0;

		for (size_t i = start; i < end; i++)
			wanted += data[i] == '\n';
		line_reader_init_range(&lr, &in, start, end);
		count = 0;
		assert_int_equal(line_reader_next(&lr, &line, &n, &err), 1);
		assert_true(n > 0 && n < 100);
		assert_memory_equal(line, data + start, n);
		count++;
		while (line_reader_next(&lr, &line, &n, &err) > 0)
			count++;
		assert_int_equal(count, wanted);
		assert_int_equal(lr.bytes, end - start);
		line_reader_release(&lr);
	}
	input_close(&in);
	free(data);
	tf_error_release(&err);
}

static void
test_stdin(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct input in;
	const char *path = tmpdir_path(state, "stdin.txt");
	int saved = dup(STDIN_FILENO), fd;

	assert_true(saved >= 0);
	write_file(path, "x;y 2\n", 6);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	assert_int_equal(input_open(&in, "-", &err), 0);
	assert_string_equal(in.name, "<stdin>");
	assert_int_equal(read_all(&in, &sb, &err), 0);
	assert_string_equal(sb.buf, "x;y 2\n");
	input_close(&in);
	/* input_close() leaves the real standard input open. */
	assert_true(fcntl(STDIN_FILENO, F_GETFD) >= 0);
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
	strbuf_release(&sb);
	tf_error_release(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plain, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_peek_then_read, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_gzip, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_gzip_members, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_gzip_truncated, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_gzip_truncated_lines, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_gzip_corrupt, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_gzip_empty_content, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_zstd, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_open_errors, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_unreadable, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_fifo, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_fifo_empty, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_pending_output, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_fifo_streaming, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_pipe_drain, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_pread, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_zip, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_line_readers, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_stdin, tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
