#include "config.h"

#include "tflame/load.h"

#include <fcntl.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tflame/clock.h"
#include "tflame/diff.h"
#include "tflame/error.h"
#include "tflame/profile.h"
#include "tflame/progress.h"
#include "tflame/strbuf.h"
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
/* The width to fit when stderr cannot say. */
#define DEFAULT_WIDTH 80

/*
 * Set by the signal handler while a load runs: how many times Ctrl-C was
 * pressed, Ctrl-Z, and a signal that ends the program (SIGTERM, SIGHUP).
 * The watching thread acts on them, so the handler only records.
 */
static volatile sig_atomic_t load_interrupts;
static volatile sig_atomic_t load_stop;
static volatile sig_atomic_t load_fatal_signal;

/* The signals the watching thread handles while the worker runs. */
static const int load_signals[] = { SIGINT, SIGTSTP, SIGTERM, SIGHUP };
#define NR_LOAD_SIGNALS (sizeof(load_signals) / sizeof(load_signals[0]))

/*
 * The line on the screen, shared with the die hook: die() may be called
 * on the worker thread (out of memory) while the watcher draws. The hook
 * takes the lock, erases the line and keeps the lock, so that nothing is
 * drawn after its message while the program exits.
 */
static pthread_mutex_t load_draw_lock = PTHREAD_MUTEX_INITIALIZER;
static bool load_line_shown;

static void
load_on_signal(int sig)
{
	if (sig == SIGINT)
		load_interrupts++;
	else if (sig == SIGTSTP)
		load_stop = 1;
	else
		load_fatal_signal = sig;
}

/*
 * Whether the line may be drawn: this process is in the foreground of
 * stderr's terminal, not a job sent to the background (as git's progress
 * does), which would draw over the shell.
 */
static bool
in_foreground(void)
{
	pid_t group = tcgetpgrp(STDERR_FILENO);

	return group < 0 || group == getpgrp();
}

/*
 * Erase the progress line if it shows, and only from the foreground: in
 * the background the row is the shell's. Call with load_draw_lock held.
 */
static void
erase_line(void)
{
	if (load_line_shown && in_foreground()) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	load_line_shown = false;
}

static void
load_die_hook(void)
{
	pthread_mutex_lock(&load_draw_lock);
	erase_line();
	/* Left locked: the program is exiting, and nothing is to be drawn. */
}

struct load_job {
	const char *path, *format;
	struct import_options opts;
	struct import_progress progress;
	struct profile_set *ps;
	struct tf_error err;
	int ret;
	_Atomic int done;
	/*
	 * The worker writes a byte here when it is done, so that the watcher,
	 * which polls it between redraws, takes the profile at once rather
	 * than at its next tick.
	 */
	int wake[2];
};

static void *
load_worker(void *arg)
{
	struct load_job *job = arg;

	xheap_huge_pages();
	job->ret = import_file(job->path, job->format, &job->opts, &job->ps, &job->err);
	atomic_store(&job->done, 1);
	if (job->wake[1] >= 0 && write(job->wake[1], "", 1) < 0) {
		/* The watcher still sees done at its next tick. */
	}
	return NULL;
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

/*
 * Whether the terminal takes UTF-8, by the user's locale. The explorer
 * has set it; the text commands print in the C locale, so for them it is
 * set for a moment, while no other thread runs (they have none yet).
 */
bool
load_locale_utf8(void)
{
	const char *current = setlocale(LC_CTYPE, NULL);
	char *saved;
	bool utf8 = false;

	if (current && strcmp(current, "C") && strcmp(current, "POSIX"))
		return !strcmp(nl_langinfo(CODESET), "UTF-8");
	saved = current ? xstrdup(current) : NULL;
	if (setlocale(LC_CTYPE, ""))
		utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (saved) {
		setlocale(LC_CTYPE, saved);
		free(saved);
	}
	return utf8;
}

/* stderr's width in columns, asked again at every redraw to follow a resize. */
static unsigned
terminal_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) || !ws.ws_col)
		return DEFAULT_WIDTH;
	return ws.ws_col;
}

/*
 * Redraw the line in place: it never reaches the last column, so it never
 * wraps. The cursor is left at its start, where what the terminal echoes
 * (the "^C" of Ctrl-C, keys typed ahead) overwrites it instead of wrapping
 * past its end onto a row of its own that the next "\r" would not reach.
 */
static void
draw_line(struct strbuf *line, const struct progress_info *pi, bool utf8)
{
	strbuf_reset(line);
	strbuf_addch(line, '\r');
	progress_format(line, pi, terminal_width(), utf8);
	strbuf_addstr(line, "\033[K\r");
	pthread_mutex_lock(&load_draw_lock);
	fputs(line->buf, stderr);
	fflush(stderr);
	load_line_shown = true;
	pthread_mutex_unlock(&load_draw_lock);
}

/* Ctrl-Z: erase the line, then stop like a shell job, as the explorer does. */
static void
stop_for_tstp(void)
{
	pthread_mutex_lock(&load_draw_lock);
	erase_line();
	pthread_mutex_unlock(&load_draw_lock);
	kill(getpid(), SIGSTOP);
}

/* Erase the line, give the signals back and die of sig as if never caught. */
static noreturn void
die_of_signal(int sig, const struct sigaction *old)
{
	pthread_mutex_lock(&load_draw_lock);
	erase_line();
	pthread_mutex_unlock(&load_draw_lock);
	for (size_t i = 0; i < NR_LOAD_SIGNALS; i++)
		sigaction(load_signals[i], &old[i], NULL);
	signal(sig, SIG_DFL);
	raise(sig);
	/* Only reached if sig is blocked: exit as the shell would report it. */
	_exit(128 + sig);
}

/* At most this many files load at once: BASE and NEW of a comparison. */
#define MAX_JOBS 2

/*
 * Load nr files (paths[i], into out[i]) each on a worker thread of its
 * own, at the same time, while this thread watches. Several files share
 * the CPUs: each importer gets its share of them for its parser threads,
 * so that the files' serial parts (reading, merging the parsers' sets)
 * overlap. The progress line shows their bytes together, named after the
 * last. On LOAD_FAILED, err is the first failed file's error.
 */
static enum load_status
load_files(const char *const *paths, int nr, const char *format,
	   const struct import_options *opts, struct profile_set **out, struct tf_error *err)
{
	/* On the heap: a worker left behind after a cancel may still use it. */
	struct load_job *jobs[MAX_JOBS];
	struct sigaction sa = { .sa_handler = load_on_signal }, old_sa[NR_LOAD_SIGNALS];
	struct progress_info pi = { .name = paths[nr - 1] };
	struct strbuf line = STRBUF_INIT;
	bool show = isatty(STDERR_FILENO), utf8 = show && load_locale_utf8(), sizes = true;
	double start = clock_ms() / 1e3, cancelled_at = 0;
	sigset_t block, old_mask;
	enum load_status status = LOAD_OK;
	pthread_t workers[MAX_JOBS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int rc, nr_done;

	if (nr < 1 || nr > MAX_JOBS)
		BUG("loading %d files at once", nr);
	for (int i = 0; i < nr; i++) {
		struct load_job *job = xcalloc(1, sizeof(*job));
		uint64_t size = plain_file_size(paths[i]);

		job->path = paths[i];
		job->format = format;
		job->opts = *opts;
		if (nr > 1 && !job->opts.threads)
			job->opts.threads = cpus > nr ? (int)(cpus / nr) : 1;
		tf_error_init(&job->err);
		job->opts.progress = &job->progress;
		if (pipe2(job->wake, O_CLOEXEC) != 0)
			job->wake[0] = job->wake[1] = -1;
		/* A share of the whole is only known when every size is. */
		sizes = sizes && size;
		pi.bytes_total += size;
		jobs[i] = job;
	}
	if (!sizes)
		pi.bytes_total = 0;
	load_interrupts = 0;
	load_stop = 0;
	load_fatal_signal = 0;
	sigemptyset(&sa.sa_mask);
	/* Not to cut a write short; the watcher's nanosleep() still wakes. */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&block);
	for (size_t i = 0; i < NR_LOAD_SIGNALS; i++) {
		sigaction(load_signals[i], &sa, &old_sa[i]);
		sigaddset(&block, load_signals[i]);
	}
	if (show)
		set_die_hook(load_die_hook);

	/* The workers (and their parser threads) leave the signals to this thread. */
	pthread_sigmask(SIG_BLOCK, &block, &old_mask);
	for (int i = 0; i < nr; i++) {
		rc = pthread_create(&workers[i], NULL, load_worker, jobs[i]);
		if (rc)
			die("cannot start a thread: %s", strerror(rc));
	}
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	for (;;) {
		struct timespec tick = { 0, PROGRESS_TICK_NS };
		struct pollfd pfd[MAX_JOBS];
		nfds_t nr_fds = 0;
		int phase = INT_MAX;
		double elapsed;

		nr_done = 0;
		for (int i = 0; i < nr; i++) {
			if (atomic_load(&jobs[i]->done))
				nr_done++;
			else if (jobs[i]->wake[0] >= 0)
				pfd[nr_fds++] = (struct pollfd){ jobs[i]->wake[0], POLLIN, 0 };
		}
		if (nr_done == nr)
			break;
		/* A signal ends either wait at once (poll() is never restarted). */
		if (nr_fds)
			poll(pfd, nr_fds, (int)(PROGRESS_TICK_NS / 1000000));
		else
			nanosleep(&tick, NULL);
		if (load_fatal_signal)
			die_of_signal(load_fatal_signal, old_sa);
		if (load_interrupts > 1) /* the user does not want to wait for the cancel */
			die_of_signal(SIGINT, old_sa);
		if (load_stop) {
			load_stop = 0;
			stop_for_tstp();
		}
		elapsed = clock_ms() / 1e3 - start;
		if (load_interrupts && !cancelled_at) {
			for (int i = 0; i < nr; i++)
				atomic_store(&jobs[i]->progress.cancel, 1);
			cancelled_at = elapsed;
		}
		if (cancelled_at && elapsed - cancelled_at > CANCEL_GRACE)
			break;
		if (!show || elapsed < PROGRESS_DELAY)
			continue;
		if (!in_foreground()) {
			/* Whatever showed is the shell's row now: not ours to erase. */
			pthread_mutex_lock(&load_draw_lock);
			load_line_shown = false;
			pthread_mutex_unlock(&load_draw_lock);
			continue;
		}
		/* The files together: the earliest phase, the sum of the work. */
		pi.bytes_done = pi.work_done = pi.work_total = 0;
		for (int i = 0; i < nr; i++) {
			int ph = atomic_load(&jobs[i]->progress.phase);

			if (ph < phase)
				phase = ph;
			pi.bytes_done += atomic_load(&jobs[i]->progress.bytes_done);
			pi.work_done += atomic_load(&jobs[i]->progress.work_done);
			pi.work_total += atomic_load(&jobs[i]->progress.work_total);
		}
		pi.phase = (enum import_phase)phase;
		pi.seconds = elapsed;
		draw_line(&line, &pi, utf8);
	}
	for (size_t i = 0; i < NR_LOAD_SIGNALS; i++)
		sigaction(load_signals[i], &old_sa[i], NULL);
	pthread_mutex_lock(&load_draw_lock);
	erase_line();
	pthread_mutex_unlock(&load_draw_lock);
	strbuf_release(&line);
	if (nr_done < nr) {
		/*
		 * Still blocked after the cancel: leave them, and their jobs,
		 * behind. The die hook stays, in case one dies before the
		 * program exits.
		 */
		for (int i = 0; i < nr; i++)
			pthread_detach(workers[i]);
		return LOAD_CANCELLED;
	}
	for (int i = 0; i < nr; i++) {
		pthread_join(workers[i], NULL);
		if (jobs[i]->wake[0] >= 0) {
			close(jobs[i]->wake[0]);
			close(jobs[i]->wake[1]);
		}
	}
	if (show)
		set_die_hook(NULL);

	for (int i = 0; i < nr; i++) {
		struct load_job *job = jobs[i];

		out[i] = NULL;
		if (load_interrupts) {
			/* The load may have finished just before it saw the cancel. */
			profile_set_free(job->ps);
			status = LOAD_CANCELLED;
		} else if (job->ret) {
			if (status == LOAD_OK)
				tf_error_move(err, &job->err);
			status = LOAD_FAILED;
		} else {
			out[i] = job->ps;
		}
		tf_error_release(&job->err);
		free(job);
	}
	/* All or nothing. */
	for (int i = 0; i < nr && status != LOAD_OK; i++) {
		profile_set_free(out[i]);
		out[i] = NULL;
	}
	return status;
}

enum load_status
load_profile(const char *path, const char *format, const struct import_options *opts,
	     struct profile_set **out, struct tf_error *err)
{
	struct profile_set *ps;
	enum load_status st = load_files(&path, 1, format, opts, &ps, err);

	if (st == LOAD_OK)
		*out = ps;
	return st;
}

enum load_status
load_diff(const char *base, const char *path, const char *format,
	  const struct import_options *opts, unsigned flags, struct profile_set **out,
	  struct tf_error *err)
{
	const char *paths[2] = { base, path };
	struct profile_set *sets[2], *b, *ps;
	enum load_status st;

	if ((st = load_files(paths, 2, format, opts, sets, err)) != LOAD_OK)
		return st;
	b = sets[0];
	ps = sets[1];
	/* Two builds at two paths: by name, and say so (diff.h). */
	if (!(flags & DIFF_IGNORE_MODULE)) {
		struct diff_overlap o;

		diff_set_overlap(b, ps, &o);
		if (diff_overlap_by_name(&o)) {
			struct strbuf sb = STRBUF_INIT;

			flags |= DIFF_IGNORE_MODULE | DIFF_NAMES_AUTO;
			diff_overlap_note(&o, &sb);
			profile_set_warn(ps, 0, "%s", sb.buf);
			strbuf_release(&sb);
		}
	}
	if (diff_join(ps, b, flags, err)) {
		profile_set_free(ps);
		profile_set_free(b);
		return LOAD_FAILED;
	}
	for (size_t i = 0; i < b->nr_diags; i++) {
		if (b->diags[i].line)
			profile_set_warn(ps, 0, "%s:%llu: %s", base,
					 (unsigned long long)b->diags[i].line, b->diags[i].msg);
		else
			profile_set_warn(ps, 0, "%s: %s", base, b->diags[i].msg);
	}
	profile_set_free(b);
	*out = ps;
	return LOAD_OK;
}
