#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tflame/cli.h"
#include "tflame/cmd.h"
#include "tflame/conf.h"
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
cmd_ui_options(void)
{
	return ui_options_table;
}

const char *
cmd_ui_usage(void)
{
	return usage_text;
}

int
cmd_ui(int argc, char **argv, bool diff)
{
	struct cli_common co = { .cmd = NULL, .usage = usage_text, CLI_SYMBOLS_ON };
	struct lens_spec lens = { 0 };
	struct tui_options o = { 0 };
	struct cli_diff d = { .diff = diff };
	struct conf conf;
	const char **dirs = NULL; /* --source-dir: borrowed from argv */
	size_t nr_dirs = 0, alloc_dirs = 0;
	unsigned diff_flags; /* --ignore-module: diff.h's flags for load_diff() */
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
	diff_flags = d.flags;
	if (argc - optind > 2) {
		r = cli_usage_error(co.cmd, "one profile, or BASE and NEW to compare "
				    "(got %d files)", argc - optind);
	} else if (d.diff || argc - optind == 2) {
		r = cli_diff_args(&co, argc, argv, &o.base);
	} else {
		r = cli_file_arg(&co, argc, argv);
		if (r == CLI_NEXT && diff_flags)
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
		o.io = co.io;
		o.lens = &lens;
		o.source_dirs = dirs;
		o.nr_source_dirs = nr_dirs;
		o.conf = &conf;
		r = tui_usable(!strcmp(o.path, "-"));
		if (r != EXIT_OK)
			goto out;
		/*
		 * Symbols come later, from a thread: perf's names show first. Not
		 * in a comparison, whose frames match by the names the join sees.
		 */
		o.io.symbols_later = o.io.symbols == SYMBOLS_RESOLVE && !o.base;
		r = cli_load_quiet(o.base, o.path, co.format, &o.io, diff_flags, &o.ps);
	}
	if (r == CLI_NEXT)
		r = tui_run(&o);
out:
	lens_spec_release(&lens);
	free(dirs);
	conf_release(&conf);
	return r;
}
