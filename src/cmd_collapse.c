#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tflame/cli.h"
#include "tflame/collapse.h"
#include "tflame/error.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"

static const char collapse_usage[] =
	"usage: tflame collapse [OPTIONS] FILE\n"
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
	CLI_COMMON_USAGE;

enum {
	OPT_PID = 256, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL, OPT_ADDRS, OPT_EVENT,
	OPT_SRCLINE, OPT_INLINE, OPT_CONTEXT,
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
	CLI_COMMON_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

const struct option *
cmd_collapse_options(void)
{
	return collapse_options_table;
}

/*
 * Folded stacks go into a pipe or a file byte for byte, as the reference
 * writes them; to a terminal, a frame name is profile data that must not
 * drive it, so there each line is escaped as every other output is
 * (text_escape()). Returns as collapse_write().
 */
static int
write_folded(const struct profile_set *ps, const struct collapse_options *co,
	     struct collapse_result *res, struct tf_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int ret;

	if (!isatty(STDOUT_FILENO))
		return collapse_write(ps, co, stdout, res, err);
	mem = open_memstream(&buf, &len);
	if (!mem)
		return tf_error_set(err, "cannot write output");
	ret = collapse_write(ps, co, mem, res, err);
	if (fclose(mem) && !ret)
		ret = tf_error_set(err, "cannot write output");
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
	free(buf);
	return ret;
}

int
cmd_collapse(int argc, char **argv)
{
	struct cli_common cc = { .cmd = "collapse", .usage = collapse_usage };
	struct collapse_options co = { 0 };
	struct collapse_result res;
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps;
	int c, r, ret = EXIT_OK;

	cc.io.collapse_compat = true;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", collapse_options_table, NULL)) != -1) {
		if ((r = cli_common_option(&cc, c, argv)) == CLI_NEXT)
			continue;
		if (r != CLI_OWN)
			return r;
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
		}
	}
	if ((r = cli_file_arg(&cc, argc, argv)) != CLI_NEXT)
		return r;

	if ((r = cli_load(cc.path, cc.format, &cc.io, &ps)) != CLI_NEXT)
		return r;
	if (write_folded(ps, &co, &res, &err) || fflush(stdout)) {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, err.msg ? tf_error_text(&err) : "cannot write output");
		cli_error("%s", sb.buf);
		strbuf_release(&sb);
		ret = err.msg && strstr(err.msg, "no samples of event") ? EXIT_USAGE : EXIT_INPUT;
	} else if (res.skipped_events && !res.kept) {
		cli_error("no samples of event %s; kept only the samples whose event "
			  "could not be read (as stackcollapse-perf.pl does)", co.event_filter);
	} else if (res.skipped_events) {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, ps_get(ps, res.kept->name));
		cli_error("kept event %s; skipped %llu samples of %zu other event%s "
			  "(choose with --event-filter)",
			  sb.buf, (unsigned long long)res.skipped_samples, res.skipped_events,
			  res.skipped_events == 1 ? "" : "s");
		strbuf_release(&sb);
	}
	tf_error_release(&err);
	profile_set_free(ps);
	return ret;
}
