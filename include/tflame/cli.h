#ifndef TFLAME_CLI_H
#define TFLAME_CLI_H

/*
 * What the commands (cmd.h) share: the options every command takes, the
 * lens and comparison options, the FILE arguments, messages on stderr and
 * loading with the errors told. The exit statuses are exitcode.h's.
 */

#include <stdbool.h>

#include "tflame/exitcode.h"
#include "tflame/import.h"
#include "tflame/lens.h"

struct model;

/* getopt_long codes of the options every command takes. */
enum {
	CLI_OPT_FORMAT = 1000,
	CLI_OPT_WEIGHT,
	CLI_OPT_NO_SYMBOLS,
	CLI_OPT_NO_DEMANGLE,
	CLI_OPT_MAX_SAMPLES,
	CLI_OPT_ADDRS,
	CLI_OPT_VERBOSE,
};

/* Put in every command's struct option table, before the final zero entry. */
#define CLI_COMMON_OPTIONS \
	{ "format", required_argument, NULL, CLI_OPT_FORMAT }, \
	{ "weight", required_argument, NULL, CLI_OPT_WEIGHT }, \
	{ "max-samples", required_argument, NULL, CLI_OPT_MAX_SAMPLES }, \
	{ "help", no_argument, NULL, 'h' }

/* The usage lines of CLI_COMMON_OPTIONS, for the commands' --help. */
#define CLI_COMMON_USAGE \
	"  --format=FORMAT         read FILE as FORMAT instead of probing: perf,\n" \
	"                          folded, speedscope, chrome, gecko, safari,\n" \
	"                          cprofile, perf.data, pprof, callgrind, jfr,\n" \
	"                          instruments, pmcstat, papyrus, stackprof,\n" \
	"                          heapprofile, ghc or v8log\n" \
	"  --weight=period|samples weigh samples by period (default) or count them\n" \
	"  --max-samples=N         keep the first N samples and warn if there are more\n" \
	"  -h, --help              show this help\n"

/*
 * The symbol options of the commands that show names (the explorer, report
 * and dump), handled by cli_common_option(). Such a command starts its
 * struct cli_common with CLI_SYMBOLS_ON: symbols resolved, names demangled.
 * --addrs names perf's unnamed frames by address (keep_unknown_addrs).
 */
#define CLI_SYMBOL_OPTIONS \
	{ "no-symbols", no_argument, NULL, CLI_OPT_NO_SYMBOLS }, \
	{ "no-demangle", no_argument, NULL, CLI_OPT_NO_DEMANGLE }, \
	{ "addrs", no_argument, NULL, CLI_OPT_ADDRS }, \
	{ "verbose", no_argument, NULL, CLI_OPT_VERBOSE }

#define CLI_SYMBOLS_ON .io = { .symbols = SYMBOLS_RESOLVE, .demangle = true }

#define CLI_SYMBOL_USAGE \
	"  --no-symbols            keep perf's names: no symbols, inline frames or\n" \
	"                          source lines read from the binaries\n" \
	"  --no-demangle           show C++ and Rust names as mangled in the input\n" \
	"  --addrs                 name the frames perf could not name by module and\n" \
	"                          address, [libfoo.so+0x1a2b], not [libfoo.so]\n" \
	"  --verbose               say more in warnings: the frames that made a module\n" \
	"                          count as rebuilt since the recording\n"

/* What the common options and the FILE argument set. */
struct cli_common {
	const char *cmd;          /* for messages: "report"; NULL for the explorer */
	const char *usage;        /* printed by --help */
	const char *format;       /* --format, NULL: probe the content */
	struct import_options io; /* --weight, --max-samples */
	const char *path;         /* the one FILE, after cli_file_arg() */
};

/* cli_common_option(): c was handled, go on parsing. */
#define CLI_NEXT (-1)
/* cli_common_option(): c is the command's own option. */
#define CLI_OWN (-2)

/*
 * Handle getopt_long()'s result c if every command shares it: --format,
 * --weight, --max-samples, --help, a missing argument (':') or an unknown
 * option. Returns CLI_NEXT, CLI_OWN, or an exit status for the command to
 * return now (after printing the usage error or the help). Call
 * getopt_long() with the optstring ":h" and opterr = 0.
 */
int cli_common_option(struct cli_common *co, int c, char **argv);

/*
 * The lens options: which profile, threads and search a command starts
 * with, and whether Left Heavy is inverted, shared by the explorer,
 * report and dump.
 */
enum {
	CLI_OPT_EVENT = 1010,
	CLI_OPT_THREAD,
	CLI_OPT_PID,
	CLI_OPT_COMM,
	CLI_OPT_SEARCH,
	CLI_OPT_INVERTED,
	CLI_OPT_TRANSFORM,
	CLI_OPT_LENS,
	CLI_OPT_TIME,
	CLI_OPT_BY_PROCESS,
};

#define CLI_LENS_OPTIONS \
	{ "event", required_argument, NULL, CLI_OPT_EVENT }, \
	{ "thread", required_argument, NULL, CLI_OPT_THREAD }, \
	{ "pid", required_argument, NULL, CLI_OPT_PID }, \
	{ "comm", required_argument, NULL, CLI_OPT_COMM }, \
	{ "search", required_argument, NULL, CLI_OPT_SEARCH }, \
	{ "inverted", no_argument, NULL, CLI_OPT_INVERTED }, \
	{ "transform", required_argument, NULL, CLI_OPT_TRANSFORM }, \
	{ "lens", required_argument, NULL, CLI_OPT_LENS }, \
	{ "time", required_argument, NULL, CLI_OPT_TIME }, \
	{ "by-process", no_argument, NULL, CLI_OPT_BY_PROCESS }

/* The usage lines of CLI_LENS_OPTIONS, for the commands' --help. */
#define CLI_LENS_USAGE \
	"  --event=EVENT           the profile of EVENT (default: the first); a part\n" \
	"                          between colons will do: sched_switch, cycles\n" \
	"  --thread=TID            only samples of thread TID (repeatable)\n" \
	"  --pid=PID               only samples of process PID (repeatable)\n" \
	"  --comm=REGEX            only threads whose name matches REGEX\n" \
	"  --search=REGEX          highlight frames matching REGEX (smart case)\n" \
	"  --inverted              Left Heavy inverted: the frames that ran first,\n" \
	"                          then their callers (bottom-up)\n" \
	"  --transform=KIND:ARG    reshape the stacks (repeatable, in order); KIND is\n" \
	"                          focus-subtree, focus-function, focus-function-\n" \
	"                          inverted, merge-function, merge-call-node, drop-\n" \
	"                          function, collapse-recursion, collapse-direct-\n" \
	"                          recursion, collapse-subtree or collapse-module;\n" \
	"                          ARG a regex, or for the -subtree and -call-node\n" \
	"                          kinds a call path: names joined by ';'\n" \
	"  --lens=FILE             apply the transforms saved in FILE (w in the\n" \
	"                          explorer), before those of --transform\n" \
	"  --time=START,END        only the samples in this time range: seconds from\n" \
	"                          the start (1.5,3) or percentages (10%,20%)\n" \
	"  --by-process            group by process: each stack under its process,\n" \
	"                          comm-PID as collapse --pid names it (P)\n"

/* Handle c if it is a lens option: CLI_NEXT, CLI_OWN or an exit status. */
int cli_lens_option(struct lens_spec *l, const char *cmd, int c);

/*
 * The options of a comparison, shared by the explorer, report, dump and
 * export: --diff (BASE NEW), --normalize and --ignore-module.
 */
enum {
	CLI_OPT_DIFF = 1030,
	CLI_OPT_NORMALIZE,
	CLI_OPT_IGNORE_MODULE,
};

#define CLI_DIFF_OPTIONS \
	{ "diff", no_argument, NULL, CLI_OPT_DIFF }, \
	{ "normalize", no_argument, NULL, CLI_OPT_NORMALIZE }, \
	{ "ignore-module", no_argument, NULL, CLI_OPT_IGNORE_MODULE }

/* What CLI_DIFF_OPTIONS set. */
struct cli_diff {
	bool diff;      /* --diff: the two files are BASE and NEW */
	bool normalize; /* --normalize: BASE scaled to NEW's total */
	unsigned flags; /* diff.h's DIFF_IGNORE_MODULE, from --ignore-module */
};

/* Handle c if it is a comparison option: CLI_NEXT, or CLI_OWN. */
int cli_diff_option(struct cli_diff *d, int c);
/*
 * The options report, dump and export share: cli_common_option(), then
 * cli_lens_option(), then cli_diff_option(). CLI_NEXT, CLI_OWN or an
 * exit status.
 */
int cli_shared_option(struct cli_common *co, struct lens_spec *l, struct cli_diff *d,
		      const char *cmd, int c, char **argv);
/*
 * Before loading: model_check_spec(), printing its error, so that a usage
 * error is told at once. Returns CLI_NEXT, or EXIT_USAGE after the error.
 */
int cli_check_spec(const struct lens_spec *l);
/*
 * For the subcommands: model_apply_spec(), printing its error. Returns
 * CLI_NEXT, or EXIT_USAGE after the error.
 */
int cli_apply_spec(const struct lens_spec *l, struct model *m, const char *path);

/*
 * After the options: check that exactly one FILE is left and set co->path.
 * Returns CLI_NEXT, or the exit status of the usage error it printed.
 */
int cli_file_arg(struct cli_common *co, int argc, char **argv);
/*
 * As cli_file_arg() for the two files of a comparison: *base, then NEW in
 * co->path. Anything but two is a usage error.
 */
int cli_diff_args(struct cli_common *co, int argc, char **argv, const char **base);

/* Print "tflame: <msg>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "tflame: <msg>\nTry 'tflame <cmd> --help'." and return EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Load path with the given format (NULL: probe) and options as the
 * explorer does (load.h): a progress line on stderr while it takes long,
 * if stderr is a terminal, and Ctrl-C cancels. Print the importer's
 * warnings on stderr and return CLI_NEXT with *out set to the new set
 * (owned by the caller); or print why not and return the exit status:
 * EXIT_INPUT, or EXIT_INTERRUPTED for Ctrl-C.
 */
int cli_load(const char *path, const char *format, const struct import_options *opts,
	     struct profile_set **out);

/*
 * As cli_load(), or cli_load_diff() when base is not NULL, for the
 * explorer: the warnings are left in the set, for it to show.
 */
int cli_load_quiet(const char *base, const char *path, const char *format,
		   const struct import_options *opts, unsigned flags, struct profile_set **out);

/*
 * As cli_load() for a comparison: BASE and then NEW loaded and joined
 * (load.h: load_diff(), diff.h: diff_join() with flags), *out NEW's set
 * holding BASE's profiles too.
 */
int cli_load_diff(const char *base, const char *path, const char *format,
		  const struct import_options *opts, unsigned flags, struct profile_set **out);

/*
 * diff_check_units() for the profile p shown of a comparison of base and
 * path: CLI_NEXT, or EXIT_INPUT after printing why they cannot be compared.
 */
struct profile;
int cli_check_units(const struct profile_set *ps, const struct profile *p, const char *base,
		    const char *path);

/*
 * Check --format's argument: true if it names an importer; else print the
 * valid names and return false (a usage error).
 */
bool cli_check_format(const char *cmd, const char *format);

/* Parse --weight's argument into opts. Returns false if it is invalid. */
bool cli_parse_weight(const char *arg, struct import_options *opts);

/* Parse a non-negative decimal integer argument. */
bool cli_parse_uint(const char *arg, unsigned long long *out);

#endif /* TFLAME_CLI_H */
