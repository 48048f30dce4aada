#include "config.h"

#include "tflame/import.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tflame/error.h"
#include "tflame/input.h"
#include "tflame/lines.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * perf.data, the binary file `perf record` writes. Its records need perf's
 * own symbol resolution (build-id cache, kallsyms, debuginfo), so tflame
 * does not decode them: it runs
 *
 *	perf script -f --ns -i FILE -F comm,pid,tid,time,period,event,ip,sym,dso --no-inline
 *
 * and streams its standard output through a pipe into the perf script
 * parser, a line at a time, never holding the text whole. That field set
 * is everything the parser reads (the callchain prints with ip,sym,dso);
 * it leaves out what is slow (srcline runs addr2line) or unused (cpu, the
 * +0x offset, tracepoint arguments). --ns keeps times exact. perf refuses
 * a field the recording lacks ("Cannot print 'period' field") before it
 * prints anything, so such a field is dropped and perf is run again.
 *
 * perf reads a perf.data file with seeks, so input that is not a plain
 * file on disk (standard input, a .gz or .zst) is first copied to an
 * unlinked-on-exit temporary file ($TMPDIR, else /tmp) and perf reads
 * that; `perf script -i -` only reads the pipe format of `perf record -o -`.
 *
 * perf's standard error goes to a temporary file rather than a pipe, so a
 * chatty perf can never block on it while tflame blocks on the output.
 * The child is started with posix_spawn() (safe from the loader thread),
 * with SIGPIPE at its default so that closing the pipe early stops it,
 * and it is always reaped. TFLAME_PERF names another perf binary.
 *
 * perf script refuses a perf.data cut short or left by a killed perf
 * record: such a file is repaired first (perfdata_walk(), below).
 */

#define PERFDATA_FORMAT "perf.data"
#define PERF_FIELDS "comm,pid,tid,time,period,event,ip,sym,dso"
/* The fields perf may refuse for some recordings, dropped one by one. */
static const char *const optional_fields[] = { "period", "time", "dso", "sym", "ip" };
/* Bytes of perf's standard error quoted in a message. */
#define STDERR_QUOTE 400
#define COPY_BLOCK (256 * 1024)

extern char **environ;

/* Put all of fd's content, from the start, into sb. */
static void
slurp_fd(int fd, struct strbuf *sb)
{
	char buf[4096];
	ssize_t n;
	off_t off = 0;

	for (;;) {
		n = pread(fd, buf, sizeof(buf), off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		strbuf_add(sb, buf, (size_t)n);
		off += n;
	}
}

/*
 * perf's standard error as one line for a message: blank lines dropped,
 * line breaks as "; ", control bytes as '?', at most STDERR_QUOTE bytes.
 */
static void
quote_stderr(const struct strbuf *text, struct strbuf *out)
{
	size_t i = 0;

	while (i < text->len) {
		const char *nl = memchr(text->buf + i, '\n', text->len - i);
		size_t n = nl ? (size_t)(nl - (text->buf + i)) : text->len - i;
		size_t s = i, e = i + n;

		while (s < e && (text->buf[s] == ' ' || text->buf[s] == '\t'))
			s++;
		while (e > s && (text->buf[e - 1] == ' ' || text->buf[e - 1] == '\r'))
			e--;
		if (e > s) {
			if (out->len)
				strbuf_addstr(out, "; ");
			for (size_t k = s; k < e && out->len < STDERR_QUOTE; k++) {
				unsigned char c = (unsigned char)text->buf[k];

				strbuf_addch(out, c < 0x20 || c == 0x7f ? '?' : c);
			}
		}
		if (out->len >= STDERR_QUOTE) {
			strbuf_addstr(out, "...");
			break;
		}
		i += n + 1;
	}
}

/* A temporary file in $TMPDIR (else /tmp); its path goes to path. */
static int
make_temp(struct strbuf *path, const char *what, struct tf_error *err)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	strbuf_reset(path);
	strbuf_addf(path, "%s/tflame-%s-XXXXXX", dir, what);
	fd = mkstemp(path->buf);
	if (fd < 0)
		return tf_error_set(err, "cannot create a temporary file in %s: %s", dir,
				    strerror(errno));
	return fd;
}

static int
write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Copy the rest of in into a new temporary file named in path. */
static int
spool_input(struct input *in, const struct import_options *opts, struct strbuf *path,
	    struct tf_error *err)
{
	struct import_progress *pr = opts->progress;
	char *buf;
	int fd = make_temp(path, "perfdata", err);

	if (fd < 0)
		return -1;
	buf = xmalloc(COPY_BLOCK);
	for (;;) {
		ssize_t n = input_read(in, buf, COPY_BLOCK, err);

		if (n < 0)
			goto fail;
		if (!n)
			break;
		if (write_all(fd, buf, (size_t)n)) {
			tf_error_set(err, "cannot write the temporary file %s: %s", path->buf,
				     strerror(errno));
			goto fail;
		}
		if (pr && atomic_load(&pr->cancel)) {
			tf_error_set(err, "cancelled");
			goto fail;
		}
	}
	free(buf);
	if (close(fd)) {
		tf_error_set(err, "cannot write the temporary file %s: %s", path->buf,
			     strerror(errno));
		unlink(path->buf);
		return -1;
	}
	return 0;
fail:
	free(buf);
	close(fd);
	unlink(path->buf);
	return -1;
}

/* A running perf script. */
struct perf_child {
	pid_t pid;
	int out;         /* read end of its standard output */
	int errfd;       /* its standard error, a temporary file */
	const struct import_options *opts;
	bool cancelled;
};

/* The line_source_fn: perf's output, as it comes. */
static ssize_t
child_read(void *arg, char *buf, size_t len, struct tf_error *err)
{
	struct perf_child *c = arg;
	struct import_progress *pr = c->opts->progress;

	if (pr && atomic_load(&pr->cancel)) {
		c->cancelled = true;
		return tf_error_set(err, "cancelled");
	}
	for (;;) {
		ssize_t n = read(c->out, buf, len);

		if (n >= 0)
			return n;
		if (errno != EINTR)
			return tf_error_set(err, "cannot read the output of perf script: %s",
					    strerror(errno));
	}
}

/*
 * Start perf script on path with fields. Returns 0, or -1 with err set
 * (ENOENT: the "needs the perf tool" message).
 */
static int
child_start(struct perf_child *c, const char *path, const char *fields, struct tf_error *err)
{
	const char *perf = getenv("TFLAME_PERF");
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	struct strbuf errpath = STRBUF_INIT;
	sigset_t none, dfl;
	int pipefd[2], r;
	/* posix_spawn() takes char *const[]: copies, not casts of constants. */
	char a_script[] = "script", a_force[] = "-f", a_ns[] = "--ns", a_in[] = "-i";
	char a_fields[] = "-F", a_noinline[] = "--no-inline";
	char *argv[] = {
		NULL, a_script, a_force, a_ns, a_in, NULL, a_fields, NULL, NULL, NULL,
	};

	if (!perf || !*perf)
		perf = "perf";
	c->pid = -1;
	c->out = c->errfd = -1;
	c->errfd = make_temp(&errpath, "perf-stderr", err);
	if (c->errfd < 0) {
		strbuf_release(&errpath);
		return -1;
	}
	unlink(errpath.buf);
	strbuf_release(&errpath);
	if (pipe2(pipefd, O_CLOEXEC)) {
		r = errno;
		close(c->errfd);
		return tf_error_set(err, "cannot run perf: %s", strerror(r));
	}

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, c->errfd, 2);
	posix_spawnattr_init(&attr);
	/* What the caller blocked or ignored is not perf's business. */
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	argv[0] = xstrdup(perf);
	argv[5] = xstrdup(path);
	argv[7] = xstrdup(fields);
	/*
	 * perf's own inline frames cost an addr2line run per address (minutes
	 * on a big recording); the symbolizer gives the same, and faster.
	 * Without the symbolizer too: each frame is then named as perf
	 * report names it, by its ELF symbol (__snprintf, not the debug
	 * info's __GI___snprintf), which perf script's inline chains leave
	 * out where the two differ.
	 */
	argv[8] = a_noinline;
	r = posix_spawnp(&c->pid, perf, &fa, &attr, argv, environ);
	free(argv[0]);
	free(argv[5]);
	free(argv[7]);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(pipefd[1]);
	if (r) {
		close(pipefd[0]);
		close(c->errfd);
		c->pid = -1;
		if (r == ENOENT)
			return tf_error_set(err, "perf.data needs the perf tool "
					    "(apt-get install linux-perf)");
		return tf_error_set(err, "cannot run %s: %s", perf, strerror(r));
	}
	c->out = pipefd[0];
	return 0;
}

/*
 * Stop (if stop) and reap the child; close its output. Returns its wait
 * status, or -1 if it could not be reaped.
 */
static int
child_finish(struct perf_child *c, bool stop)
{
	int status = -1;

	if (c->out >= 0) {
		/* perf writing to a closed pipe gets SIGPIPE (default action). */
		close(c->out);
		c->out = -1;
	}
	if (c->pid > 0) {
		if (stop)
			kill(c->pid, SIGTERM);
		while (waitpid(c->pid, &status, 0) < 0) {
			if (errno != EINTR) {
				status = -1;
				break;
			}
		}
		c->pid = -1;
	}
	return status;
}

/* The field perf refused in its message, or NULL. */
static const char *
refused_field(const struct strbuf *errtext, const char *fields)
{
	const char *p = strstr(errtext->buf, "Cannot print '");

	if (!p)
		return NULL;
	p += strlen("Cannot print '");
	for (size_t i = 0; i < ARRAY_SIZE(optional_fields); i++) {
		size_t n = strlen(optional_fields[i]);

		if (!strncmp(p, optional_fields[i], n) && p[n] == '\'' &&
		    strstr(fields, optional_fields[i]))
			return optional_fields[i];
	}
	return NULL;
}

/* fields without name (a comma-separated list). */
static void
drop_field(struct strbuf *fields, const char *name)
{
	struct strbuf out = STRBUF_INIT;
	size_t i = 0, n = strlen(name);

	while (i < fields->len) {
		const char *comma = memchr(fields->buf + i, ',', fields->len - i);
		size_t len = comma ? (size_t)(comma - (fields->buf + i)) : fields->len - i;

		if (len != n || memcmp(fields->buf + i, name, n)) {
			if (out.len)
				strbuf_addch(&out, ',');
			strbuf_add(&out, fields->buf + i, len);
		}
		i += len + 1;
	}
	strbuf_reset(fields);
	strbuf_add(fields, out.buf, out.len);
	strbuf_release(&out);
}

/*
 * The parser's messages count lines of perf's output, not of the file:
 * say so, rather than point at a line of a binary file.
 */
static void
relabel_lines(struct profile_set *ps, size_t first_diag, struct tf_error *err)
{
	for (size_t i = first_diag; i < ps->nr_diags; i++) {
		struct diag *d = &ps->diags[i];
		struct strbuf sb = STRBUF_INIT;

		if (!d->line)
			continue;
		strbuf_addf(&sb, "perf script output line %llu: %s",
			    (unsigned long long)d->line, d->msg);
		free(d->msg);
		d->msg = strbuf_detach(&sb, NULL);
		d->line = 0;
	}
	if (err && err->msg && err->line) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "perf script output line %llu: %s",
			    (unsigned long long)err->line, err->msg);
		tf_error_set(err, "%s", sb.buf);
		strbuf_release(&sb);
	}
}

/*
 * Run perf script on path and parse its output into ps. Returns 0, or -1
 * with err set.
 */
static int
run_perf(const char *path, const struct import_options *opts, struct profile_set *ps,
	 struct tf_error *err)
{
	struct import_options popts = *opts;
	struct strbuf fields = STRBUF_INIT, errtext = STRBUF_INIT, quoted = STRBUF_INIT;
	size_t first_diag = ps->nr_diags;
	int ret = -1;

	/* Progress counts bytes of the file, which perf's output is not. */
	popts.progress = NULL;
	strbuf_addstr(&fields, PERF_FIELDS);
	for (;;) {
		struct perf_child c = { .opts = opts };
		struct line_reader lr;
		struct tf_error perr = TF_ERROR_INIT;
		const char *drop;
		int pret, status;
		bool output;

		if (child_start(&c, path, fields.buf, err))
			break;
		line_reader_init_fn(&lr, child_read, &c);
		pret = perf_parse_lines(&lr, &popts, ps, &perr);
		output = lr.bytes > 0;
		line_reader_release(&lr);
		/* A parse error or a cancel leaves perf running: stop it. */
		status = child_finish(&c, pret != 0);
		strbuf_reset(&errtext);
		slurp_fd(c.errfd, &errtext);
		close(c.errfd);

		if (c.cancelled) {
			tf_error_move(err, &perr);
			break;
		}
		if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			/* perf's own verdict explains more than ours. */
			drop = output ? NULL : refused_field(&errtext, fields.buf);
			tf_error_release(&perr);
			if (drop) {
				drop_field(&fields, drop);
				continue;
			}
			strbuf_reset(&quoted);
			quote_stderr(&errtext, &quoted);
			if (status != -1 && WIFSIGNALED(status))
				tf_error_set(err, "perf script was killed by signal %d%s%s",
					     WTERMSIG(status), quoted.len ? ": " : "",
					     quoted.buf);
			else if (status != -1 && WEXITSTATUS(status) == 127 && !output)
				tf_error_set(err, "perf.data needs the perf tool "
					     "(apt-get install linux-perf)%s%s",
					     quoted.len ? ": " : "", quoted.buf);
			else
				tf_error_set(err, "perf script failed%s%s",
					     quoted.len ? ": " : "",
					     quoted.len ? quoted.buf : " with no message");
			break;
		}
		if (pret) {
			relabel_lines(ps, first_diag, &perr);
			tf_error_move(err, &perr);
			break;
		}
		relabel_lines(ps, first_diag, NULL);
		ret = 0;
		break;
	}
	strbuf_release(&fields);
	strbuf_release(&errtext);
	strbuf_release(&quoted);
	return ret;
}

/*
 * A perf.data cut short.
 *
 * perf record writes the file header first with a data size of 0, then
 * the records, then the feature sections (build ids, command line, event
 * names...) after the data, and at last rewrites the header with the data
 * size and the feature bitmap. A recording killed (kill -9, a crash, a
 * full disk) keeps the first header: data size 0 with feature bits set
 * for sections never written. A copy interrupted keeps a header whose data
 * runs past the end of the file. perf script refuses both ("failed to
 * process sample", "failed to process type: 0"), however many whole
 * records come before the end.
 *
 * So when the header's data does not fit the file, or its size is 0 with
 * records after it, tflame walks the records from the data offset by the
 * sizes in their headers (struct perf_event_header: u32 type, u16 misc,
 * u16 size) to the last one that is whole, and gives perf a repaired copy:
 * the file up to that record's end, the header's data size set to it and
 * the feature bitmap cleared, as those sections came after the data and
 * are gone. Only the 8-byte record headers are read, a window at a time.
 *
 * The file header (struct perf_file_header, little-endian as "PERFILE2"
 * reads): magic, size (104), attr_size, then three sections of u64
 * offset and size: attrs, data, event_types, then a 256-bit feature
 * bitmap. A file of another magic or header size is left to perf.
 */
#define HDR_SIZE 104
#define HDR_DATA_OFFSET 40
#define HDR_DATA_SIZE 48
#define HDR_FEATURES 72
#define EVENT_HEADER_SIZE 8
#define WALK_WINDOW (1024 * 1024)

/* What perfdata_walk() found in a file cut short. */
struct perfdata_cut {
	uint64_t file_size;
	uint64_t data_offset;
	uint64_t data_size;     /* as the header says: 0 for a killed perf record */
	uint64_t end;           /* the end of the last whole record */
	uint64_t records;       /* whole records before it */
};

static uint64_t
get_le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void
put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

static int
pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

static bool
cancelled(const struct import_options *opts)
{
	return opts->progress && atomic_load(&opts->progress->cancel);
}

/*
 * Is the perf.data in fd cut short? Returns 1 with *cut filled (the
 * records to keep), 0 when it is whole or not a file this repairs (perf
 * reads it as it is), or -1 with err set: cut before its first whole
 * record, a header that cannot be right, a read error, a cancel.
 */
static int
perfdata_walk(int fd, const struct import_options *opts, struct perfdata_cut *cut,
	      struct tf_error *err)
{
	unsigned char hdr[HDR_SIZE];
	unsigned char *win;
	uint64_t limit, pos, wstart = 0, wlen = 0;
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return 0;
	memset(cut, 0, sizeof(*cut));
	cut->file_size = (uint64_t)st.st_size;
	if (cut->file_size < 16)
		return 0;
	if (pread_all(fd, hdr, cut->file_size < HDR_SIZE ? 16 : HDR_SIZE, 0))
		return tf_error_set(err, "cannot read the perf.data header: %s",
				    errno ? strerror(errno) : "short read");
	if (memcmp(hdr, "PERFILE2", 8) || get_le64(hdr + 8) != HDR_SIZE)
		return 0;
	if (cut->file_size < HDR_SIZE)
		return tf_error_set(err, "cut at byte %" PRIu64 ", inside the %d-byte "
				    "perf.data header: no samples to load",
				    cut->file_size, HDR_SIZE);
	cut->data_offset = get_le64(hdr + HDR_DATA_OFFSET);
	cut->data_size = get_le64(hdr + HDR_DATA_SIZE);
	if (cut->data_offset < HDR_SIZE)
		return tf_error_set(err, "corrupt perf.data header: the data starts at "
				    "byte %" PRIu64 ", inside the header", cut->data_offset);
	if (cut->data_size && cut->data_size <= UINT64_MAX - cut->data_offset &&
	    cut->data_offset + cut->data_size <= cut->file_size)
		return 0; /* whole, as far as the header can tell */
	if (!cut->data_size && cut->file_size == cut->data_offset)
		return tf_error_set(err, "no samples: the header's data size is 0 and no "
				    "records follow it (perf record was stopped before "
				    "it wrote any)");
	if (cut->data_offset > cut->file_size)
		return tf_error_set(err, "cut at byte %" PRIu64 ", before the records, "
				    "which start at byte %" PRIu64 ": no samples to load",
				    cut->file_size, cut->data_offset);

	/* A killed recording's records run to the end of the file. */
	limit = cut->file_size;
	if (cut->data_size && cut->data_size < limit - cut->data_offset)
		limit = cut->data_offset + cut->data_size;
	win = xmalloc(WALK_WINDOW);
	pos = cut->data_offset;
	while (limit - pos >= EVENT_HEADER_SIZE) {
		uint16_t size;

		if (pos + EVENT_HEADER_SIZE > wstart + wlen) {
			uint64_t want = limit - pos < WALK_WINDOW ? limit - pos : WALK_WINDOW;

			if ((cut->records & 0xfff) == 0 && cancelled(opts)) {
				free(win);
				return tf_error_set(err, "cancelled");
			}
			if (pread_all(fd, win, (size_t)want, pos)) {
				free(win);
				return tf_error_set(err, "cannot read the perf.data records: %s",
						    errno ? strerror(errno) : "short read");
			}
			wstart = pos;
			wlen = want;
		}
		/* u16 size at byte 6 of the record header */
		size = (uint16_t)(win[pos - wstart + 6] | win[pos - wstart + 7] << 8);
		if (size < EVENT_HEADER_SIZE || size > limit - pos)
			break; /* the record the cut went through, or garbage */
		pos += size;
		cut->records++;
	}
	free(win);
	cut->end = pos;
	if (!cut->records && !cut->data_size)
		return tf_error_set(err, "no samples: the header's data size is 0 and the "
				    "first record (at byte %" PRIu64 ") is not whole",
				    cut->data_offset);
	if (!cut->records)
		return tf_error_set(err, "cut at byte %" PRIu64 ", inside the first record "
				    "(at byte %" PRIu64 "): no samples to load",
				    cut->file_size, cut->data_offset);
	return 1;
}

/* Copy fd's first len bytes (of the file path) to out (the file tmp). */
static int
copy_prefix(int fd, const char *path, int out, const char *tmp, uint64_t len,
	    struct tf_error *err)
{
	char *buf = xmalloc(COPY_BLOCK);
	uint64_t off = 0;
	int ret = 0;

	while (off < len && !ret) {
		size_t n = len - off < COPY_BLOCK ? (size_t)(len - off) : COPY_BLOCK;

		if (pread_all(fd, buf, n, off))
			ret = tf_error_set(err, "cannot read %s: %s", path,
					   errno ? strerror(errno) : "short read");
		else if (write_all(out, buf, n))
			ret = tf_error_set(err, "cannot write the temporary file %s: %s", tmp,
					   strerror(errno));
		off += n;
	}
	free(buf);
	return ret;
}

/*
 * Make path's first cut->end bytes a perf.data perf reads: a copy into a
 * new temporary file (named in tmp, which the caller unlinks) or, when
 * in_place (path is tflame's own temporary copy already), the file itself.
 */
static int
perfdata_repair(int fd, const char *path, bool in_place, const struct perfdata_cut *cut,
		struct strbuf *tmp, struct tf_error *err)
{
	unsigned char hdr[HDR_SIZE];
	const char *name = path;
	int out = fd;

	if (pread_all(fd, hdr, HDR_SIZE, 0))
		return tf_error_set(err, "cannot read the perf.data header: %s",
				    errno ? strerror(errno) : "short read");
	put_le64(hdr + HDR_DATA_SIZE, cut->end - cut->data_offset);
	memset(hdr + HDR_FEATURES, 0, HDR_SIZE - HDR_FEATURES);
	if (in_place) {
		if (ftruncate(fd, (off_t)cut->end))
			return tf_error_set(err, "cannot write the temporary file %s: %s",
					    path, strerror(errno));
	} else {
		out = make_temp(tmp, "perfdata", err);
		if (out < 0)
			return -1;
		name = tmp->buf;
		if (copy_prefix(fd, path, out, name, cut->end, err))
			goto fail;
	}
	if (pwrite(out, hdr, HDR_SIZE, 0) != HDR_SIZE) {
		tf_error_set(err, "cannot write the temporary file %s: %s", name,
			     strerror(errno));
		goto fail;
	}
	if (!in_place && close(out)) {
		out = fd;
		tf_error_set(err, "cannot write the temporary file %s: %s", name,
			     strerror(errno));
		goto fail;
	}
	return 0;
fail:
	if (out != fd)
		close(out);
	return -1;
}

/* The warning for a file cut short, once perf has read the repaired copy. */
static void
warn_cut(struct profile_set *ps, const struct perfdata_cut *cut)
{
	uint64_t partial = cut->file_size - cut->end;

	if (cut->data_size && cut->data_size > UINT64_MAX - cut->data_offset)
		profile_set_warn(ps, 0, "cut at byte %" PRIu64 ", inside the records "
				 "(the header's data size, %" PRIu64 ", runs past any "
				 "file): loaded the samples of the %" PRIu64 " whole "
				 "records before byte %" PRIu64, cut->file_size,
				 cut->data_size, cut->records, cut->end);
	else if (cut->data_size)
		profile_set_warn(ps, 0, "cut at byte %" PRIu64 ", inside the records "
				 "(the header says they end at byte %" PRIu64 "): loaded "
				 "the samples of the %" PRIu64 " whole records before "
				 "byte %" PRIu64, cut->file_size,
				 cut->data_offset + cut->data_size, cut->records, cut->end);
	else
		profile_set_warn(ps, 0, "the header's data size is 0, as perf record "
				 "leaves it when killed: loaded the samples of the %"
				 PRIu64 " whole records before byte %" PRIu64 "%s",
				 cut->records, cut->end,
				 partial ? ", where the file is cut inside a record" : "");
}

/*
 * Hand perf path, or a repaired copy if the file is cut short. owned:
 * path is tflame's own temporary copy, which may be repaired in place.
 */
static int
perfdata_run(const char *path, bool owned, const struct import_options *opts,
	     struct profile_set *ps, struct tf_error *err)
{
	struct perfdata_cut cut;
	struct strbuf fixed = STRBUF_INIT;
	int fd = open(path, owned ? O_RDWR | O_CLOEXEC : O_RDONLY | O_CLOEXEC);
	int r, ret;

	/* perf's own message says why a file it cannot open is no good. */
	if (fd < 0)
		return run_perf(path, opts, ps, err);
	r = perfdata_walk(fd, opts, &cut, err);
	if (r == 1)
		r = perfdata_repair(fd, path, owned, &cut, &fixed, err) ? -1 : 1;
	close(fd);
	if (r < 0) {
		strbuf_release(&fixed);
		return -1;
	}
	ret = run_perf(fixed.len ? fixed.buf : path, opts, ps, err);
	if (!ret && r == 1)
		warn_cut(ps, &cut);
	if (ret && r == 1 && err->msg && strcmp(err->msg, "cancelled")) {
		/* Say what perf was given, or "no samples" reads as a lie. */
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "%s at byte %" PRIu64 ", read the %" PRIu64 " whole "
			    "records before byte %" PRIu64 ": %s",
			    cut.data_size ? "cut" : "data size 0 in the header, records end",
			    cut.file_size, cut.records, cut.end, err->msg);
		tf_error_set(err, "%s", sb.buf);
		strbuf_release(&sb);
	}
	if (fixed.len)
		unlink(fixed.buf);
	strbuf_release(&fixed);
	return ret;
}

static int
perfdata_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	      struct tf_error *err)
{
	static const struct import_options defaults;
	struct strbuf tmp = STRBUF_INIT;
	const char *path = in->name;
	int ret;

	if (!opts)
		opts = &defaults;
	/* perf seeks: only a plain file on disk can be handed over as it is. */
	if (!input_seekable(in) || !strcmp(in->name, "<stdin>")) {
		if (spool_input(in, opts, &tmp, err))
			return -1;
		path = tmp.buf;
	}
	ret = perfdata_run(path, tmp.len > 0, opts, ps, err);
	if (tmp.len)
		unlink(tmp.buf);
	strbuf_release(&tmp);
	if (!ret && opts->progress)
		atomic_fetch_add(&opts->progress->bytes_done, in->size);
	ps->format = PERFDATA_FORMAT;
	return ret;
}

/*
 * perf.data starts with a magic: "PERFILE2" (written as a little-endian
 * u64, so "2ELIFREP" from a big-endian machine), or "PERFFILE" from perf
 * before 2.6.36.
 */
static int
perfdata_probe(const char *data, size_t len)
{
	if (len < 8)
		return 0;
	if (!memcmp(data, "PERFILE2", 8) || !memcmp(data, "2ELIFREP", 8) ||
	    !memcmp(data, "PERFFILE", 8))
		return 100;
	return 0;
}

static const char *const perfdata_names[] = { "perf.data*", ".data", NULL };

const struct importer importer_perfdata = {
	.name = "perf.data",
	.description = "perf.data",
	.probe = perfdata_probe,
	.load = perfdata_load,
	.names = perfdata_names,
};
