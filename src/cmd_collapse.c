#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tflame/cli.h"
#include "tflame/cmd.h"
#include "tflame/collapse.h"
#include "tflame/demangle.h"
#include "tflame/diff.h"
#include "tflame/error.h"
#include "tflame/lens.h"
#include "tflame/model.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/symbols.h"
#include "tflame/text.h"

static const char collapse_usage[] =
	"usage: tflame collapse [OPTIONS] FILE\n"
	"   or: tflame collapse --diff [OPTIONS] BASE NEW\n"
	"\n"
	"Print folded stacks, one 'frame;frame;... count' line per distinct stack,\n"
	"sorted: a drop-in for FlameGraph's stackcollapse-perf.pl. Folded input is\n"
	"passed through merged and sorted.\n"
	"\n"
	"  --pid                   root frame is comm-PID\n"
	"  --tid                   root frame is comm-PID/TID\n"
	"  --kernel                annotate kernel frames with _[k]\n"
	"  --jit                   annotate JIT frames with _[j]\n"
	"  --all                   all annotations (--kernel --jit)\n"
	"  --addrs                 show the address of unknown frames\n"
	"  --event-filter=EVENT    keep samples of EVENT (default: the first event)\n"
	"  --srcline               add the source lines of 'perf script -F+srcline'\n"
	"  --inline                expand each frame into its inline chain, read from\n"
	"                          the binary with libdw (as addr2line -i -f -s -C)\n"
	"  --context               with --inline, add :file:line to each frame\n"
	"  --diff                  compare BASE and NEW: 'stack base new' lines, as\n"
	"                          difffolded.pl writes them for flamegraph.pl\n"
	"  --normalize             with --diff, scale BASE's counts to NEW's total\n"
	"                          (difffolded.pl -n)\n"
	"  --ignore-module         with --diff, match by function name alone: a frame\n"
	"                          perf could not name is [unknown], not [module]\n"
	"  --inverted              each stack leaf first (the root frame last), for an\n"
	"                          inverted (bottom-up) flame graph\n"
	"  --transform=KIND:ARG    reshape the stacks first, as the explorer's\n"
	"                          transforms do (repeatable; see tflame --help)\n"
	"  --lens=FILE             apply the transforms saved in FILE first\n"
	"  --time=START,END        only the samples in this time range: seconds from\n"
	"                          the start (1.5,3) or percentages (10%,20%)\n"
	"  --by-process            each stack under its process first, so that the\n"
	"                          transforms see it; the root is comm-PID as --pid\n"
	CLI_COMMON_USAGE;

enum {
	OPT_PID = 256, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL, OPT_ADDRS, OPT_EVENT,
	OPT_SRCLINE, OPT_INLINE, OPT_CONTEXT, OPT_DIFF, OPT_NORMALIZE, OPT_INVERTED,
	OPT_IGNORE_MODULE,
};

static const struct option collapse_options_table[] = {
	{ "pid", no_argument, NULL, OPT_PID },
	{ "tid", no_argument, NULL, OPT_TID },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "addrs", no_argument, NULL, OPT_ADDRS },
	{ "event-filter", required_argument, NULL, OPT_EVENT },
	{ "srcline", no_argument, NULL, OPT_SRCLINE },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "context", no_argument, NULL, OPT_CONTEXT },
	{ "diff", no_argument, NULL, OPT_DIFF },
	{ "normalize", no_argument, NULL, OPT_NORMALIZE },
	{ "ignore-module", no_argument, NULL, OPT_IGNORE_MODULE },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "transform", required_argument, NULL, CLI_OPT_TRANSFORM },
	{ "lens", required_argument, NULL, CLI_OPT_LENS },
	{ "time", required_argument, NULL, CLI_OPT_TIME },
	{ "by-process", no_argument, NULL, CLI_OPT_BY_PROCESS },
	CLI_COMMON_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

const struct option *
cmd_collapse_options(void)
{
	return collapse_options_table;
}

/*
 * The script's inline() for collapse_options.expand (collapse_expand_fn):
 * the chain from the symbolizer, names demangled with their parameters.
 */
static bool
inline_chain(void *data, const struct profile_set *ps, const struct frame *f, bool context,
	     struct strbuf *out)
{
	struct symbolizer *sym = data;
	struct sym_result r;

	if (!f->addr || f->module == STR_EMPTY ||
	    !symbolizer_resolve(sym, ps_get(ps, f->module), f->addr, &r))
		return false;
	for (size_t i = r.nr_frames; i-- > 0;) {
		const struct sym_frame *sf = &r.frames[i];
		const char *name = sf->function ? sf->function : "??";

		if (i != r.nr_frames - 1)
			strbuf_addch(out, ';');
		if (!demangle_name(name, strlen(name), DEMANGLE_PARAMS, out))
			strbuf_addstr(out, name);
		if (context) {
			const char *file = sf->file ? sf->file : "??";
			const char *slash = strrchr(file, '/');

			strbuf_addf(out, ":%s:", slash ? slash + 1 : file);
			if (sf->line)
				strbuf_addf(out, "%u", sf->line);
			else
				strbuf_addch(out, '?');
		}
	}
	return true;
}


/*
 * Write len bytes of folded lines to stdout: into a pipe or a file byte for
 * byte, as the reference writes them; to a terminal, a frame name is
 * profile data that must not drive it, so there each line is escaped as
 * every other output is (text_escape()).
 */
static int
emit_folded(const char *buf, size_t len, struct tf_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	bool tty = isatty(STDOUT_FILENO);
	int ret = 0;

	if (!tty) {
		if (len && fwrite(buf, 1, len, stdout) != len)
			ret = tf_error_set(err, "cannot write output");
		return ret;
	}
	for (size_t i = 0; !ret && i < len;) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (buf + i)) : len - i;

		strbuf_reset(&sb);
		text_escape(&sb, buf + i, n);
		strbuf_addch(&sb, '\n');
		if (fwrite(sb.buf, 1, sb.len, stdout) != sb.len)
			ret = tf_error_set(err, "cannot write output");
		i += n + 1;
	}
	strbuf_release(&sb);
	return ret;
}

/* ps's folded stacks in a new buffer (*buf, *len; free() it). Returns as collapse_write(). */
static int
collapse_to_memory(const struct profile_set *ps, const struct collapse_options *co,
		   struct collapse_result *res, char **buf, size_t *len, struct tf_error *err)
{
	FILE *mem = open_memstream(buf, len);
	int ret;

	if (!mem)
		return tf_error_set(err, "cannot write output");
	ret = collapse_write(ps, co, mem, res, err);
	if (fclose(mem) && !ret)
		ret = tf_error_set(err, "cannot write output");
	return ret;
}

/*
 * Say what collapse left out, or why it failed. Returns the exit status:
 * failed is collapse_write()'s return value, err its error.
 */
static int
collapse_report(const struct profile_set *ps, const struct collapse_options *co,
		const struct collapse_result *res, int failed, struct tf_error *err)
{
	if (failed) {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, err->msg ? tf_error_text(err) : "cannot write output");
		cli_error("%s", sb.buf);
		strbuf_release(&sb);
		return err->msg && strstr(err->msg, "no samples of event") ? EXIT_USAGE : EXIT_INPUT;
	}
	if (res->skipped_events && !res->kept) {
		cli_error("no samples of event %s; kept only the samples whose event "
			  "could not be read (as stackcollapse-perf.pl does)", co->event_filter);
	} else if (res->skipped_events) {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, ps_get(ps, res->kept->name));
		cli_error("kept event %s; skipped %llu samples of %zu other event%s "
			  "(choose with --event-filter)",
			  sb.buf, (unsigned long long)res->skipped_samples, res->skipped_events,
			  res->skipped_events == 1 ? "" : "s");
		strbuf_release(&sb);
	}
	return EXIT_OK;
}

/*
 * collapse --diff: each file collapsed as on its own, then the two sets
 * of lines joined as difffolded.pl joins them.
 */
static int
collapse_diff(struct cli_common *cc, const char *base, const struct collapse_options *co,
	      unsigned flags)
{
	const char *paths[2] = { base, cc->path };
	char *buf[2] = { NULL, NULL }, *out = NULL;
	size_t len[2] = { 0, 0 }, out_len = 0;
	struct tf_error err = TF_ERROR_INIT;
	int ret = EXIT_OK;

	for (int k = 0; k < 2 && ret == EXIT_OK; k++) {
		struct collapse_result res;
		struct profile_set *ps;
		int failed;

		if ((ret = cli_load(paths[k], cc->format, &cc->io, &ps)) != CLI_NEXT)
			break;
		failed = collapse_to_memory(ps, co, &res, &buf[k], &len[k], &err);
		ret = collapse_report(ps, co, &res, failed, &err);
		profile_set_free(ps);
	}
	if (ret == EXIT_OK) {
		FILE *mem = open_memstream(&out, &out_len);

		if (!mem || diff_folded_write(buf[0], len[0], buf[1], len[1], flags, mem, &err) ||
		    fclose(mem) || emit_folded(out, out_len, &err) || fflush(stdout)) {
			cli_error("%s", err.msg ? tf_error_text(&err) : "cannot write output");
			ret = EXIT_INPUT;
		}
	}
	free(buf[0]);
	free(buf[1]);
	free(out);
	tf_error_release(&err);
	return ret;
}

int
cmd_collapse(int argc, char **argv)
{
	struct cli_common cc = { .cmd = "collapse", .usage = collapse_usage };
	struct collapse_options co = { 0 };
	struct collapse_result res;
	struct tf_error err = TF_ERROR_INIT;
	struct lens_spec lens = { 0 };
	struct profile_set *ps;
	unsigned diff_flags = 0;
	bool diff = false;
	int c, r, failed, ret;

	cc.io.collapse_compat = true;
	cc.io.allow_empty = true;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", collapse_options_table, NULL)) != -1) {
		if ((r = cli_common_option(&cc, c, argv)) == CLI_NEXT)
			continue;
		if (r != CLI_OWN) {
			lens_spec_release(&lens);
			return r;
		}
		if ((c == CLI_OPT_TRANSFORM || c == CLI_OPT_LENS || c == CLI_OPT_TIME ||
		     c == CLI_OPT_BY_PROCESS) &&
		    cli_lens_option(&lens, "collapse", c) == CLI_NEXT)
			continue;
		switch (c) {
		case OPT_PID:
			co.pid = true;
			break;
		case OPT_TID:
			co.tid = true;
			break;
		case OPT_KERNEL:
			co.kernel = true;
			break;
		case OPT_JIT:
			co.jit = true;
			break;
		case OPT_ALL:
			co.kernel = co.jit = true;
			break;
		case OPT_ADDRS:
			co.addrs = true;
			cc.io.keep_unknown_addrs = true;
			break;
		case OPT_EVENT:
			co.event_filter = optarg;
			break;
		case OPT_SRCLINE:
			co.srcline = true;
			break;
		case OPT_INLINE:
			co.inline_frames = true;
			cc.io.symbols = SYMBOLS_KEEP;
			break;
		case OPT_CONTEXT:
			co.context = true;
			break;
		case OPT_DIFF:
			diff = true;
			break;
		case OPT_NORMALIZE:
			diff_flags |= DIFF_NORMALIZE;
			break;
		case OPT_IGNORE_MODULE:
			diff_flags |= DIFF_IGNORE_MODULE;
			co.ignore_module = true;
			break;
		case OPT_INVERTED:
			co.inverted = true;
			break;
		}
	}
	if (diff) {
		const char *base;
		bool lensed = lens.nr_transforms || lens.file || lens.time || lens.by_process;

		lens_spec_release(&lens);
		if (lensed)
			return cli_usage_error("collapse", "--diff takes no transforms, --time "
					       "nor --by-process");
		if ((r = cli_diff_args(&cc, argc, argv, &base)) != CLI_NEXT)
			return r;
		co.expand = co.inline_frames ? inline_chain : NULL;
		co.expand_data = co.inline_frames ? symbolizer_new() : NULL;
		ret = collapse_diff(&cc, base, &co, diff_flags);
		symbolizer_free(co.expand_data);
		return ret;
	}
	if (diff_flags) {
		lens_spec_release(&lens);
		return cli_usage_error("collapse", "--normalize and --ignore-module compare: they "
						   "need --diff");
	}
	if ((r = cli_file_arg(&cc, argc, argv)) != CLI_NEXT ||
	    (r = cli_check_spec(&lens)) != CLI_NEXT ||
	    (r = cli_load(cc.path, cc.format, &cc.io, &ps)) != CLI_NEXT) {
		lens_spec_release(&lens);
		return r;
	}
	/* An input with no samples (import.h: allow_empty) has nothing to reshape. */
	if ((lens.nr_transforms || lens.file || lens.time || lens.by_process) && ps->nr_profiles) {
		/* The transforms of a model, then made the set's own. */
		struct model m;

		model_init(&m, ps);
		if ((r = cli_apply_spec(&lens, &m, cc.path)) != CLI_NEXT) {
			model_release(&m);
			lens_spec_release(&lens);
			return r;
		}
		/* Grouped (here or in the lens file), a perf root is its process frame's name. */
		if (m.lens.by_process && !co.tid)
			co.pid = true;
		model_bake_lens(&m);
		m.ps = NULL;
		model_release(&m);
	}
	lens_spec_release(&lens);
	if (co.inline_frames) {
		co.expand = inline_chain;
		co.expand_data = symbolizer_new();
	}
	if (isatty(STDOUT_FILENO)) {
		char *buf = NULL;
		size_t len = 0;

		failed = collapse_to_memory(ps, &co, &res, &buf, &len, &err);
		if (!failed)
			failed = emit_folded(buf, len, &err);
		free(buf);
	} else {
		failed = collapse_write(ps, &co, stdout, &res, &err);
	}
	if (!failed && fflush(stdout))
		failed = tf_error_set(&err, "cannot write output");
	ret = collapse_report(ps, &co, &res, failed, &err);
	symbolizer_free(co.expand_data);
	tf_error_release(&err);
	profile_set_free(ps);
	return ret;
}
