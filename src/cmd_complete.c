#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tflame/cli.h"
#include "tflame/cmd.h"
#include "tflame/error.h"
#include "tflame/export.h"
#include "tflame/import.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

/*
 * tflame __complete WHAT [ARG]: the words the shell completions offer, one
 * a line, asked of the program itself so that they never fall out of step
 * with its options. Hidden from --help; tflame(1) documents it under SHELL
 * COMPLETION for other shells:
 *
 *   commands          the subcommands
 *   options [CMD]     CMD's long options ("--limit=" when one takes a value),
 *                     the explorer's without CMD
 *   values OPTION     the fixed values of --format, --weight, --view, --to
 *                     or --colors
 *   events FILE       the events (profiles) of FILE
 *   threads FILE      "TID<tab>COMM" for each thread of FILE
 *   pids FILE         "PID<tab>COMM" for each process of FILE
 *   comms FILE        the thread and process names of FILE
 *
 * A completion must be quick and quiet: FILE is read only if it is a
 * regular file, with no symbols and no more than COMPLETE_MAX_SAMPLES
 * samples (the events and threads of a large file are nearly always all
 * in its first part), and any problem prints nothing.
 */

#define COMPLETE_MAX_SAMPLES 200000

static const char *const commands[] = { "report", "collapse", "dump", "export", "diff" };
/* As cmd_dump.c takes them; tests/completion.sh checks it does. */
static const char *const views[] = { "left-heavy", "time-order", "sandwich" };
static const char *const weights[] = { "period", "samples" };

static void
print_options(const struct option *o)
{
	for (; o->name; o++)
		printf("--%s%s\n", o->name, o->has_arg == required_argument ? "=" : "");
}

static void
print_list(const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		puts(words[i]);
}

/* A name as one safe line: escaped, so no control byte reaches the shell. */
static void
print_name(const char *prefix, const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	text_escape_str(&sb, name);
	printf("%s%s\n", prefix, sb.buf);
	strbuf_release(&sb);
}

static struct profile_set *
load_quietly(const char *path)
{
	struct import_options opts = { .symbols = SYMBOLS_OFF,
				       .max_samples = COMPLETE_MAX_SAMPLES };
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = NULL;
	struct stat st;

	/* Never stdin nor a FIFO: a completion must not wait for input. */
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return NULL;
	if (import_file(path, NULL, &opts, &ps, &err))
		ps = NULL;
	tf_error_release(&err);
	return ps;
}

/*
 * Whether ids[0..i) has id already: a file has few threads. A thread's
 * later names (an exec) are the thread, not another one.
 */
static bool
seen_before(const struct profile_set *ps, uint32_t i, bool pid)
{
	for (uint32_t j = 0; j < i; j++) {
		const struct thread *a = &ps->threads[i], *b = &ps->threads[j];

		if (pid ? a->pid == b->pid
			: a->first == b->first || (a->tid == b->tid && a->comm == b->comm))
			return true;
	}
	return false;
}

static void
print_threads(const struct profile_set *ps, bool pids)
{
	struct strbuf names = STRBUF_INIT;

	for (uint32_t i = 0; i < ps->nr_threads; i++) {
		const struct thread *t = &ps->threads[i];
		int64_t id = pids ? t->pid : t->tid;
		char prefix[32];

		if (id < 0 || seen_before(ps, i, pids))
			continue;
		snprintf(prefix, sizeof(prefix), "%lld\t", (long long)id);
		/* A tid's names, "sh->python3" after an exec; a pid's first name. */
		strbuf_reset(&names);
		if (pids)
			strbuf_addstr(&names, ps_get(ps, t->comm));
		else
			profile_thread_names(ps, i, "->", &names);
		print_name(prefix, names.buf);
	}
	strbuf_release(&names);
}

static void
print_comms(const struct profile_set *ps)
{
	for (uint32_t i = 0; i < ps->nr_threads; i++) {
		str_id comm = ps->threads[i].comm;
		bool dup = false;

		for (uint32_t j = 0; j < i && !dup; j++)
			dup = ps->threads[j].comm == comm;
		if (comm != STR_EMPTY && !dup)
			print_name("", ps_get(ps, comm));
	}
}

int
cmd_complete(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "", *arg = argc > 2 ? argv[2] : NULL;
	struct profile_set *ps;

	if (!strcmp(what, "commands")) {
		print_list(commands, ARRAY_SIZE(commands));
		return EXIT_OK;
	}
	if (!strcmp(what, "options")) {
		if (!arg || !strcmp(arg, "diff"))
			print_options(cmd_ui_options());
		else if (!strcmp(arg, "report"))
			print_options(cmd_report_options());
		else if (!strcmp(arg, "collapse"))
			print_options(cmd_collapse_options());
		else if (!strcmp(arg, "dump"))
			print_options(cmd_dump_options());
		else if (!strcmp(arg, "export"))
			print_options(cmd_export_options());
		return EXIT_OK;
	}
	if (!strcmp(what, "values")) {
		if (!arg)
			return EXIT_OK;
		if (!strcmp(arg, "format")) {
			for (size_t i = 0; importers[i]; i++)
				puts(importers[i]->name);
		} else if (!strcmp(arg, "weight")) {
			print_list(weights, ARRAY_SIZE(weights));
		} else if (!strcmp(arg, "view")) {
			print_list(views, ARRAY_SIZE(views));
		} else if (!strcmp(arg, "to")) {
			for (int f = 0; f < EXPORT_NR_FORMATS; f++)
				puts(export_format_name((enum export_format)f));
		} else if (!strcmp(arg, "colors")) {
			for (int c = 0; c < COLOR_NR_MODES; c++)
				puts(palette_mode_name((enum color_mode)c));
		}
		return EXIT_OK;
	}
	if (strcmp(what, "events") && strcmp(what, "threads") && strcmp(what, "pids") &&
	    strcmp(what, "comms"))
	{
		cli_error("__complete: unknown request '%s' (see SHELL COMPLETION in tflame(1))",
			  what);
		return EXIT_USAGE;
	}
	if (!arg || !(ps = load_quietly(arg)))
		return EXIT_OK;
	if (!strcmp(what, "events")) {
		for (size_t i = 0; i < ps->nr_profiles; i++)
			if (*ps_get(ps, ps->profiles[i]->name))
				print_name("", ps_get(ps, ps->profiles[i]->name));
	} else if (!strcmp(what, "comms")) {
		print_comms(ps);
	} else {
		print_threads(ps, !strcmp(what, "pids"));
	}
	profile_set_free(ps);
	return EXIT_OK;
}
