#include "config.h"

#include "tflame/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/diff.h"
#include "tflame/error.h"
#include "tflame/load.h"
#include "tflame/model.h"
#include "tflame/profile.h"
#include "tflame/search.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

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

/* What load_profile() or load_diff() said, as cli_load() tells it. */
static int
cli_loaded(enum load_status st, const char *path, struct tf_error *err, struct profile_set *ps,
	   bool warn, struct profile_set **out)
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
	for (size_t i = 0; warn && i < ps->nr_diags; i++) {
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

	return cli_loaded(st, path, &err, ps, true, out);
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

	return cli_loaded(st, path, &err, ps, true, out);
}

int
cli_load_quiet(const char *base, const char *path, const char *format,
	       const struct import_options *opts, unsigned flags, struct profile_set **out)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = NULL;
	enum load_status st = base ? load_diff(base, path, format, opts, flags, &ps, &err)
				   : load_profile(path, format, opts, &ps, &err);

	return cli_loaded(st, path, &err, ps, false, out);
}
