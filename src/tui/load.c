#include "config.h"

#include "tflame/load.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tflame/error.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

/* Show nothing for loads shorter than this: no flicker on small files. */
#define PROGRESS_DELAY 0.25
/* Redraw the line this often. */
#define PROGRESS_TICK_NS 100000000L
/*
 * After Ctrl-C, wait this long for the importer to notice. It may be
 * blocked reading a pipe that says nothing; then it is left behind (the
 * program is about to exit) rather than keeping the user waiting.
 */
#define CANCEL_GRACE 1.0

/* Set by the SIGINT handler while a load runs. */
static volatile sig_atomic_t load_interrupted;

static void
load_on_sigint(int sig)
{
	(void)sig;
	if (load_interrupted) {
		/* A second Ctrl-C: the user does not want to wait for the cancel. */
		signal(SIGINT, SIG_DFL);
		raise(SIGINT);
	}
	load_interrupted = 1;
}

struct load_job {
	const char *path, *format;
	struct import_options opts;
	struct import_progress progress;
	struct profile_set *ps;
	struct tf_error err;
	int ret;
	_Atomic int done;
};

static void *
load_worker(void *arg)
{
	struct load_job *job = arg;

	job->ret = import_file(job->path, job->format, &job->opts, &job->ps, &job->err);
	atomic_store(&job->done, 1);
	return NULL;
}

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The size to show a percentage of, or 0 when bytes_done cannot be
 * compared with the file size: a pipe, or compressed data (the importers
 * count decompressed bytes).
 */
static uint64_t
plain_file_size(const char *path)
{
	unsigned char magic[4] = { 0 };
	struct stat st;
	FILE *f;
	size_t n;

	if (!strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	f = fopen(path, "rb");
	if (!f)
		return 0;
	n = fread(magic, 1, sizeof(magic), f);
	fclose(f);
	if (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b)
		return 0;
	if (n == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd)
		return 0;
	return (uint64_t)st.st_size;
}

static void
add_size(struct strbuf *out, uint64_t bytes)
{
	if (bytes >= 1000000000)
		strbuf_addf(out, "%.1f GB", (double)bytes / 1e9);
	else
		strbuf_addf(out, "%.1f MB", (double)bytes / 1e6);
}

static void
progress_line(struct strbuf *out, const char *name, uint64_t done, uint64_t total,
	      double seconds, int phase)
{
	strbuf_addstr(out, "tflame: loading ");
	if (!strcmp(name, "-"))
		strbuf_addstr(out, "standard input");
	else
		text_escape_str(out, name);
	strbuf_addstr(out, ": ");
	if (phase == IMPORT_SYMBOLS) {
		strbuf_addstr(out, "resolving symbols (--no-symbols skips this)");
		return;
	}
	if (total) {
		unsigned pct = done >= total ? 100 : (unsigned)(done * 100 / total);

		strbuf_addf(out, "%u%% of ", pct);
		add_size(out, total);
	} else {
		add_size(out, done);
		strbuf_addstr(out, " read");
	}
	if (seconds > 0)
		strbuf_addf(out, ", %.0f MB/s", (double)done / 1e6 / seconds);
	strbuf_addstr(out, " (Ctrl-C cancels)");
}

enum load_status
load_profile(const char *path, const char *format, const struct import_options *opts,
	     struct profile_set **out, struct tf_error *err)
{
	/* On the heap: a worker left behind after a cancel may still use it. */
	struct load_job *job = xcalloc(1, sizeof(*job));
	struct sigaction sa = { .sa_handler = load_on_sigint }, old_sa;
	struct strbuf line = STRBUF_INIT;
	bool shown = false, show = isatty(STDERR_FILENO);
	uint64_t total = plain_file_size(path);
	double start = now_seconds(), cancelled_at = 0;
	enum load_status status;
	pthread_t worker;
	int rc;

	job->path = path;
	job->format = format;
	job->opts = *opts;
	tf_error_init(&job->err);
	job->opts.progress = &job->progress;
	load_interrupted = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_sa);

	rc = pthread_create(&worker, NULL, load_worker, job);
	if (rc)
		die("cannot start a thread: %s", strerror(rc));
	while (!atomic_load(&job->done)) {
		struct timespec tick = { 0, PROGRESS_TICK_NS };
		double elapsed;

		nanosleep(&tick, NULL);
		elapsed = now_seconds() - start;
		if (load_interrupted && !cancelled_at) {
			atomic_store(&job->progress.cancel, 1);
			cancelled_at = elapsed;
		}
		if (cancelled_at && elapsed - cancelled_at > CANCEL_GRACE)
			break;
		if (!show || elapsed < PROGRESS_DELAY || atomic_load(&job->done))
			continue;
		strbuf_reset(&line);
		strbuf_addch(&line, '\r');
		progress_line(&line, path, atomic_load(&job->progress.bytes_done), total,
			      elapsed, atomic_load(&job->progress.phase));
		strbuf_addstr(&line, "\033[K");
		fputs(line.buf, stderr);
		fflush(stderr);
		shown = true;
	}
	sigaction(SIGINT, &old_sa, NULL);
	if (shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	strbuf_release(&line);
	if (!atomic_load(&job->done)) {
		/* Still blocked after the cancel: leave it, and job, behind. */
		pthread_detach(worker);
		return LOAD_CANCELLED;
	}
	pthread_join(worker, NULL);

	if (load_interrupted) {
		/* The load may have finished just before it saw the cancel. */
		profile_set_free(job->ps);
		status = LOAD_CANCELLED;
	} else if (job->ret) {
		tf_error_move(err, &job->err);
		status = LOAD_FAILED;
	} else {
		*out = job->ps;
		status = LOAD_OK;
	}
	tf_error_release(&job->err);
	free(job);
	return status;
}
