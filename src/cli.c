#include "config.h"

#include "tflame/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/tui.h"

static const char usage_text[] =
	"usage: tflame [OPTIONS] FILE             explore a profile in the terminal\n"
	"       tflame report [OPTIONS] FILE      print a summary: threads, top functions\n"
	"       tflame collapse [OPTIONS] FILE    print folded stacks (stackcollapse-perf.pl)\n"
	"       tflame dump [OPTIONS] FILE        print a pane as text\n"
	"       tflame --help | --version\n"
	"\n"
	"FILE is perf script text or folded stacks, plain, gzip or zstd; - reads stdin.\n"
	"\n"
	"Options of the explorer:\n"
	"  --format=FORMAT         read FILE as FORMAT (perf, folded); default: probe\n"
	"  --weight=period|samples weigh samples by period (default) or count them\n"
	"  --event=EVENT           show the profile of EVENT first (default: the first)\n"
	"\n"
	"In the explorer, ? lists the keys and q quits.\n"
	"\n"
	"Run 'tflame report --help', 'tflame collapse --help' or 'tflame dump --help'\n"
	"for their options, and 'man tflame' for the details.\n";

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
	for (size_t i = 0; importers[i]; i++)
		strbuf_addf(&names, "%s%s", i ? ", " : "", importers[i]->name);
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
	return CLI_NEXT;
}

struct profile_set *
cli_load(const char *path, const char *format, const struct import_options *opts)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = NULL;

	if (import_file(path, format, opts, &ps, &err)) {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, tf_error_text(&err));
		cli_error("%s", sb.buf);
		strbuf_release(&sb);
		tf_error_release(&err);
		return NULL;
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
	tf_error_release(&err);
	return ps;
}

enum { OPT_EVENT = 256 };

static const struct option ui_options_table[] = {
	{ "event", required_argument, NULL, OPT_EVENT },
	CLI_COMMON_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

/* tflame [OPTIONS] FILE: the explorer. */
static int
ui_main(int argc, char **argv)
{
	struct cli_common co = { .cmd = NULL, .usage = usage_text };
	struct tui_options o = { 0 };
	int c, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", ui_options_table, NULL)) != -1) {
		if ((r = cli_common_option(&co, c, argv)) == CLI_NEXT)
			continue;
		if (r != CLI_OWN)
			return r;
		if (c == OPT_EVENT)
			o.event = optarg;
	}
	if ((r = cli_file_arg(&co, argc, argv)) != CLI_NEXT)
		return r;
	o.path = co.path;
	o.format = co.format;
	o.io = co.io;
	return tui_run(&o);
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
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "collapse"))
		return cmd_collapse(argc - 1, argv + 1);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(argc - 1, argv + 1);
	return ui_main(argc, argv);
}
