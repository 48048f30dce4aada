#include "config.h"

#include "tflame/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tflame/conf.h"
#include "tflame/diff.h"
#include "tflame/error.h"
#include "tflame/load.h"
#include "tflame/model.h"
#include "tflame/profile.h"
#include "tflame/search.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/tui.h"
#include "tflame/xalloc.h"

static const char usage_text[] =
	"usage: tflame [OPTIONS] FILE             explore a profile in the terminal\n"
	"       tflame [OPTIONS] BASE NEW         explore NEW compared with BASE\n"
	"       tflame diff [OPTIONS] BASE NEW    the same\n"
	"       tflame report [OPTIONS] FILE      print a summary: threads, top functions\n"
	"       tflame collapse [OPTIONS] FILE    print folded stacks (stackcollapse-perf.pl)\n"
	"       tflame dump [OPTIONS] FILE        print a pane as text\n"
	"       tflame export [OPTIONS] FILE      write the lens as folded, speedscope or SVG\n"
	"       tflame --dump-config              print the config file's defaults\n"
	"       tflame --help | --version\n"
	"\n"
	"FILE is perf script text, perf.data, folded stacks, speedscope JSON, a Chrome\n"
	"or Node profile, a Gecko profile (Firefox, samply, perf), a Safari recording,\n"
	"pprof, callgrind, cProfile, Java Flight Recorder, an Instruments deep copy, a\n"
	"pmcstat call graph, a papyrus log, stackprof, a V8 heap profile, GHC's -pj or\n"
	"a preprocessed V8 tick log, plain, gzip, zstd or zipped; - reads stdin.\n"
	"\n"
	"With BASE and NEW (each probed on its own), or a folded file with two\n"
	"counts per line (difffolded.pl's), the explorer shows NEW coloured by its\n"
	"change: red grew, blue shrank. Frames match by name and module (by name\n"
	"alone when the files share most by name and little by module: two\n"
	"builds at two paths), threads by name; the options of the lens apply\n"
	"to both.\n"
	"\n"
	"Options of the explorer:\n"
	CLI_COMMON_USAGE
	"  --diff                  compare BASE and NEW (two files are enough)\n"
	"  --normalize             compare BASE scaled to NEW's total weight\n"
	"  --ignore-module         match functions by name alone (BASE NEW)\n"
	CLI_LENS_USAGE
	CLI_SYMBOL_USAGE
	"  --source-dir=DIR        look for source files under DIR first (repeatable)\n"
	"\n"
	"In the explorer, ? lists the keys and q quits. Keys, colours and defaults\n"
	"come from ~/.config/tflame/config (TFLAME_CONFIG=FILE reads FILE instead,\n"
	"TFLAME_CONFIG= none).\n"
	"\n"
	"Run 'tflame report --help', 'tflame collapse --help', 'tflame dump --help'\n"
	"or 'tflame export --help' for their options, and 'man tflame' for the details.\n";

void
cli_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("tflame: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int
cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("tflame: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'tflame%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
	return EXIT_USAGE;
}

bool
cli_parse_uint(const char *arg, unsigned long long *out)
{
	char *end;

	if (!arg || *arg < '0' || *arg > '9')
		return false;
	errno = 0;
	*out = strtoull(arg, &end, 10);
	return !errno && !*end;
}

bool
cli_check_format(const char *cmd, const char *format)
{
	struct strbuf names = STRBUF_INIT;

	if (importer_find(format))
		return true;
	importer_list_names(&names, true);
	cli_usage_error(cmd, "unknown format '%s' (valid: %s)", format, names.buf);
	strbuf_release(&names);
	return false;
}

bool
cli_parse_weight(const char *arg, struct import_options *opts)
{
	if (!strcmp(arg, "period") || !strcmp(arg, "default"))
		opts->weight = WEIGHT_DEFAULT;
	else if (!strcmp(arg, "samples"))
		opts->weight = WEIGHT_SAMPLES;
	else
		return false;
	return true;
}

int
cli_common_option(struct cli_common *co, int c, char **argv)
{
	switch (c) {
	case CLI_OPT_FORMAT:
		if (!cli_check_format(co->cmd, optarg))
			return EXIT_USAGE;
		co->format = optarg;
		return CLI_NEXT;
	case CLI_OPT_WEIGHT:
		if (!cli_parse_weight(optarg, &co->io))
			return cli_usage_error(co->cmd, "--weight takes period or samples, not '%s'",
					       optarg);
		return CLI_NEXT;
	case CLI_OPT_MAX_SAMPLES: {
		unsigned long long n;

		if (!cli_parse_uint(optarg, &n) || !n)
			return cli_usage_error(co->cmd, "--max-samples takes a number above 0, not '%s'",
					       optarg);
		co->io.max_samples = n;
		return CLI_NEXT;
	}
	case CLI_OPT_NO_SYMBOLS:
		co->io.symbols = SYMBOLS_OFF;
		return CLI_NEXT;
	case CLI_OPT_NO_DEMANGLE:
		co->io.demangle = false;
		return CLI_NEXT;
	case CLI_OPT_ADDRS:
		co->io.keep_unknown_addrs = true;
		return CLI_NEXT;
	case CLI_OPT_VERBOSE:
		co->io.verbose = true;
		return CLI_NEXT;
	case 'h':
		fputs(co->usage, stdout);
		return EXIT_OK;
	case ':':
		return cli_usage_error(co->cmd, "option %s needs an argument", argv[optind - 1]);
	case '?':
		return cli_usage_error(co->cmd, "unknown option %s", argv[optind - 1]);
	default:
		return CLI_OWN;
	}
}

int
cli_file_arg(struct cli_common *co, int argc, char **argv)
{
	if (optind >= argc)
		return cli_usage_error(co->cmd, co->cmd ? "no input file given" : "no profile given");
	if (optind + 1 < argc)
		return cli_usage_error(co->cmd, "one input file at a time (got %d)", argc - optind);
	co->path = argv[optind];
	/* For scripts and tests that must not depend on this machine's binaries. */
	if (co->io.symbols == SYMBOLS_RESOLVE) {
		const char *env = getenv("TFLAME_NO_SYMBOLS");

		if (env && *env)
			co->io.symbols = SYMBOLS_OFF;
	}
	return CLI_NEXT;
}

int
cli_diff_args(struct cli_common *co, int argc, char **argv, const char **base)
{
	if (argc - optind != 2)
		return cli_usage_error(co->cmd, "%s two input files, BASE and NEW (got %d)",
				       co->cmd ? "--diff takes" : "a comparison takes",
				       argc - optind);
	*base = argv[optind];
	optind++;
	return cli_file_arg(co, argc, argv);
}

int
cli_diff_option(struct cli_diff *d, int c)
{
	switch (c) {
	case CLI_OPT_DIFF:
		d->diff = true;
		return CLI_NEXT;
	case CLI_OPT_NORMALIZE:
		d->normalize = true;
		return CLI_NEXT;
	case CLI_OPT_IGNORE_MODULE:
		d->flags |= DIFF_IGNORE_MODULE;
		return CLI_NEXT;
	}
	return CLI_OWN;
}

int
cli_shared_option(struct cli_common *co, struct lens_spec *l, struct cli_diff *d,
		  const char *cmd, int c, char **argv)
{
	int ret = cli_common_option(co, c, argv);

	if (ret == CLI_OWN)
		ret = cli_lens_option(l, cmd, c);
	if (ret == CLI_OWN)
		ret = cli_diff_option(d, c);
	return ret;
}

int
cli_lens_option(struct lens_spec *l, const char *cmd, int c)
{
	unsigned long long id;

	switch (c) {
	case CLI_OPT_EVENT:
		l->event = optarg;
		return CLI_NEXT;
	case CLI_OPT_THREAD:
	case CLI_OPT_PID:
		if (!cli_parse_uint(optarg, &id) || id > INT64_MAX)
			return cli_usage_error(cmd, "--%s takes a number, not '%s'",
					       c == CLI_OPT_THREAD ? "thread" : "pid", optarg);
		if (c == CLI_OPT_THREAD) {
			ALLOC_GROW(l->tids, l->nr_tids, l->alloc_tids);
			l->tids[l->nr_tids++] = (int64_t)id;
		} else {
			ALLOC_GROW(l->pids, l->nr_pids, l->alloc_pids);
			l->pids[l->nr_pids++] = (int64_t)id;
		}
		return CLI_NEXT;
	case CLI_OPT_COMM:
		l->comm = optarg;
		return CLI_NEXT;
	case CLI_OPT_SEARCH:
		l->search = optarg;
		return CLI_NEXT;
	case CLI_OPT_INVERTED:
		l->inverted = true;
		return CLI_NEXT;
	case CLI_OPT_TRANSFORM:
		ALLOC_GROW(l->transforms, l->nr_transforms, l->alloc_transforms);
		l->transforms[l->nr_transforms++] = optarg;
		return CLI_NEXT;
	case CLI_OPT_LENS:
		l->file = optarg;
		return CLI_NEXT;
	case CLI_OPT_TIME:
		l->time = optarg;
		return CLI_NEXT;
	case CLI_OPT_BY_PROCESS:
		l->by_process = true;
		return CLI_NEXT;
	default:
		return CLI_OWN;
	}
}

int
cli_check_spec(const struct lens_spec *l)
{
	struct tf_error err = TF_ERROR_INIT;
	int ret = CLI_NEXT;

	if (model_check_spec(l, &err)) {
		/* model_check_spec() escaped what came from the user. */
		cli_error("%s", tf_error_text(&err));
		ret = EXIT_USAGE;
	}
	tf_error_release(&err);
	return ret;
}

int
cli_apply_spec(const struct lens_spec *l, struct model *m, const char *path)
{
	struct tf_error err = TF_ERROR_INIT;
	int ret = CLI_NEXT;

	if (model_apply_spec(m, l, path, &err)) {
		/* model_apply_spec() escaped what came from the user and the file. */
		cli_error("%s", tf_error_text(&err));
		ret = EXIT_USAGE;
	}
	tf_error_release(&err);
	return ret;
}

_Static_assert(EXIT_INTERRUPTED == TUI_EXIT_INTERRUPTED, "one status for a cancelled load");

/* What load_profile() or load_diff() said, as cli_load() tells it. */
static int
cli_loaded(enum load_status st, const char *path, struct tf_error *err, struct profile_set *ps,
	   struct profile_set **out)
{
	switch (st) {
	case LOAD_OK:
		break;
	case LOAD_CANCELLED:
		cli_error("loading cancelled");
		return EXIT_INTERRUPTED;
	case LOAD_FAILED: {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, tf_error_text(err));
		cli_error("%s", sb.buf);
		strbuf_release(&sb);
		tf_error_release(err);
		return EXIT_INPUT;
	}
	}
	for (size_t i = 0; i < ps->nr_diags; i++) {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, path);
		if (ps->diags[i].line)
			strbuf_addf(&sb, ":%llu", (unsigned long long)ps->diags[i].line);
		strbuf_addstr(&sb, ": warning: ");
		text_escape_str(&sb, ps->diags[i].msg);
		cli_error("%s", sb.buf);
		strbuf_release(&sb);
	}
	tf_error_release(err);
	*out = ps;
	return CLI_NEXT;
}

int
cli_load(const char *path, const char *format, const struct import_options *opts,
	 struct profile_set **out)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = NULL;
	enum load_status st = load_profile(path, format, opts, &ps, &err);

	return cli_loaded(st, path, &err, ps, out);
}

int
cli_check_units(const struct profile_set *ps, const struct profile *p, const char *base,
		const char *path)
{
	struct tf_error err = TF_ERROR_INIT;
	int ret = CLI_NEXT;

	if (diff_check_units(ps, p, base, path, &err)) {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, tf_error_text(&err));
		cli_error("%s", sb.buf);
		strbuf_release(&sb);
		ret = EXIT_INPUT;
	}
	tf_error_release(&err);
	return ret;
}

int
cli_load_diff(const char *base, const char *path, const char *format,
	      const struct import_options *opts, unsigned flags, struct profile_set **out)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = NULL;
	enum load_status st = load_diff(base, path, format, opts, flags, &ps, &err);

	return cli_loaded(st, path, &err, ps, out);
}

enum { UI_OPT_SOURCE_DIR = 1100 };

static const struct option ui_options_table[] = {
	{ "source-dir", required_argument, NULL, UI_OPT_SOURCE_DIR },
	CLI_DIFF_OPTIONS,
	CLI_LENS_OPTIONS,
	CLI_SYMBOL_OPTIONS,
	CLI_COMMON_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

const struct option *
cli_ui_options(void)
{
	return ui_options_table;
}

/*
 * tflame [OPTIONS] FILE, or BASE NEW (diff set: tflame diff, which takes
 * two files only): the explorer.
 */
static int
ui_main(int argc, char **argv, bool diff)
{
	struct cli_common co = { .cmd = NULL, .usage = usage_text, CLI_SYMBOLS_ON };
	struct lens_spec lens = { 0 };
	struct tui_options o = { 0 };
	struct cli_diff d = { .diff = diff };
	struct conf conf;
	const char **dirs = NULL; /* --source-dir: borrowed from argv */
	size_t nr_dirs = 0, alloc_dirs = 0;
	int c, r;

	/* The config's defaults first: the options override them. */
	conf_init(&conf);
	conf_load_user(&conf);
	co.io.weight = conf.weight;
	co.io.symbols = conf.symbols ? SYMBOLS_RESOLVE : SYMBOLS_OFF;
	co.io.demangle = conf.demangle;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", ui_options_table, NULL)) != -1) {
		if ((r = cli_common_option(&co, c, argv)) == CLI_NEXT ||
		    (r == CLI_OWN && (r = cli_lens_option(&lens, NULL, c)) == CLI_NEXT) ||
		    (r == CLI_OWN && (r = cli_diff_option(&d, c)) == CLI_NEXT))
			continue;
		if (r == CLI_OWN && c == UI_OPT_SOURCE_DIR) {
			ALLOC_GROW(dirs, nr_dirs, alloc_dirs);
			dirs[nr_dirs++] = optarg;
			continue;
		}
		lens_spec_release(&lens);
		free(dirs);
		conf_release(&conf);
		return r == CLI_OWN ? EXIT_USAGE : r;
	}
	o.normalize = d.normalize;
	o.diff_flags = d.flags;
	if (argc - optind > 2) {
		r = cli_usage_error(co.cmd, "one profile, or BASE and NEW to compare "
				    "(got %d files)", argc - optind);
	} else if (d.diff || argc - optind == 2) {
		r = cli_diff_args(&co, argc, argv, &o.base);
	} else {
		r = cli_file_arg(&co, argc, argv);
		if (r == CLI_NEXT && o.diff_flags)
			r = cli_usage_error(co.cmd, "--ignore-module compares: give BASE and NEW");
	}
	/* Before the terminal is asked for: a file that cannot be read is named now. */
	if (r == CLI_NEXT)
		r = cli_check_spec(&lens);
	if (r == CLI_NEXT && o.base && !strcmp(o.base, "-") && !strcmp(co.path, "-"))
		r = cli_usage_error(co.cmd, "BASE and NEW cannot both be stdin");
	for (int i = 0; i < 2 && r == CLI_NEXT; i++) {
		const char *p = i ? co.path : o.base;

		if (p && strcmp(p, "-") && access(p, R_OK)) {
			struct strbuf sb = STRBUF_INIT;

			text_escape_str(&sb, p);
			cli_error("cannot open %s: %s", sb.buf, strerror(errno));
			strbuf_release(&sb);
			r = EXIT_INPUT;
		}
	}
	if (r == CLI_NEXT) {
		o.path = co.path;
		o.format = co.format;
		o.io = co.io;
		o.lens = &lens;
		o.source_dirs = dirs;
		o.nr_source_dirs = nr_dirs;
		o.conf = &conf;
		r = tui_run(&o);
	}
	lens_spec_release(&lens);
	free(dirs);
	conf_release(&conf);
	return r;
}

int
cli_main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd)
		return cli_usage_error(NULL, "no profile given");
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("tflame %s\n", PACKAGE_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "--dump-config")) {
		struct strbuf sb = STRBUF_INIT;

		if (argc > 2)
			return cli_usage_error(NULL, "--dump-config takes no arguments");
		conf_dump_defaults(&sb);
		fwrite(sb.buf, 1, sb.len, stdout);
		strbuf_release(&sb);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "collapse"))
		return cmd_collapse(argc - 1, argv + 1);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(argc - 1, argv + 1);
	if (!strcmp(cmd, "export"))
		return cmd_export(argc - 1, argv + 1);
	if (!strcmp(cmd, "__complete"))
		return cmd_complete(argc - 1, argv + 1);
	if (!strcmp(cmd, "diff"))
		return ui_main(argc - 1, argv + 1, true);
	return ui_main(argc, argv, false);
}
