#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tflame/cli.h"
#include "tflame/cmd.h"
#include "tflame/diff.h"
#include "tflame/error.h"
#include "tflame/export.h"
#include "tflame/inverted.h"
#include "tflame/model.h"
#include "tflame/nav.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"

static const char export_usage[] =
	"usage: tflame export [OPTIONS] FILE [-o OUT]\n"
	"   or: tflame export --diff [OPTIONS] BASE NEW [-o OUT]\n"
	"\n"
	"Write what the explorer shows of FILE under the lens options (the event,\n"
	"the threads, the zoom) for other tools: folded stacks for flamegraph.pl\n"
	"or inferno, speedscope JSON (one profile per thread, in time order), or an\n"
	"interactive SVG flame graph in the explorer's colours.\n"
	"\n"
	"With --diff, or a differential folded file, the SVG shows NEW with each box\n"
	"red where it grew since BASE and blue where it shrank, as flamegraph.pl\n"
	"draws difffolded.pl's output.\n"
	"\n"
	"  --to=FORMAT             folded, speedscope or svg (default: from OUT's\n"
	"                          extension, .json speedscope, .svg svg, else folded)\n"
	"  -o, --output=OUT        write to OUT (default: standard output)\n"
	"  --zoom=FRAME;FRAME;...  only the subtree of this call path, root first\n"
	"  --icicle                SVG: root at the top (default: at the bottom)\n"
	"  --colors=MODE           SVG: colour by function (default), module or kind\n"
	"  --minwidth=N[%]         SVG: leave out boxes narrower than N pixels, or N%\n"
	"                          of the width (default 0.1 px, as flamegraph.pl)\n"
	"  --width=PX              SVG: the image's width (default 1200)\n"
	"  --diff                  compare BASE and NEW (SVG colours)\n"
	"  --normalize             with --diff, scale BASE to NEW's total weight\n"
	"  --ignore-module         with --diff, match functions by name alone\n"
	CLI_LENS_USAGE
	CLI_SYMBOL_USAGE
	CLI_COMMON_USAGE;

enum {
	OPT_TO = 256, OPT_OUTPUT, OPT_ZOOM, OPT_ICICLE, OPT_COLORS, OPT_MINWIDTH, OPT_WIDTH,
};

static const struct option export_options_table[] = {
	{ "to", required_argument, NULL, OPT_TO },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "zoom", required_argument, NULL, OPT_ZOOM },
	{ "icicle", no_argument, NULL, OPT_ICICLE },
	{ "colors", required_argument, NULL, OPT_COLORS },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "width", required_argument, NULL, OPT_WIDTH },
	CLI_DIFF_OPTIONS,
	CLI_LENS_OPTIONS,
	CLI_SYMBOL_OPTIONS,
	CLI_COMMON_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

const struct option *
cmd_export_options(void)
{
	return export_options_table;
}

/* --minwidth=N or N%. */
static bool
parse_minwidth(const char *arg, struct export_svg_options *o)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || v < 0 || v != v)
		return false;
	o->minwidth_percent = *end == '%';
	o->minwidth = v;
	return !*end || (*end == '%' && !end[1] && v <= 100);
}

int
cmd_export(int argc, char **argv)
{
	struct cli_common cc = { .cmd = "export", .usage = export_usage, CLI_SYMBOLS_ON };
	struct lens_spec lens = { 0 };
	struct export_svg_options svg = EXPORT_SVG_OPTIONS_INIT;
	struct export_lens el = { 0 };
	struct inverted_export ie;
	struct export_result res;
	struct tf_error err = TF_ERROR_INIT;
	const char *to = NULL, *output = NULL, *zoom = NULL;
	enum export_format format;
	unsigned long long width;
	struct profile_set *ps;
	struct model m;
	struct cli_diff d = { 0 };
	bool have_model = false;
	const char *base = NULL;
	FILE *out = stdout;
	int c, ret = EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", export_options_table, NULL)) != -1) {
		if (c == 'o')
			c = OPT_OUTPUT;
		if ((ret = cli_shared_option(&cc, &lens, &d, "export", c, argv)) == CLI_NEXT)
			continue;
		if (ret != CLI_OWN)
			goto out;
		ret = EXIT_OK;
		switch (c) {
		case OPT_TO:
			if (!export_format_find(optarg, &format)) {
				ret = cli_usage_error("export", "--to takes folded, speedscope or svg, "
						      "not '%s'", optarg);
				goto out;
			}
			to = optarg;
			break;
		case OPT_OUTPUT:
			output = optarg;
			break;
		case OPT_ZOOM:
			zoom = optarg;
			break;
		case OPT_ICICLE:
			svg.icicle = true;
			break;
		case OPT_COLORS:
			for (svg.color = 0; svg.color < COLOR_NR_MODES; svg.color++)
				if (!strcmp(optarg, palette_mode_name(svg.color)))
					break;
			if (svg.color == COLOR_NR_MODES) {
				ret = cli_usage_error("export", "--colors takes function, module or "
						      "kind, not '%s'", optarg);
				goto out;
			}
			break;
		case OPT_MINWIDTH:
			if (!parse_minwidth(optarg, &svg)) {
				ret = cli_usage_error("export", "--minwidth takes pixels or a "
						      "percentage, not '%s'", optarg);
				goto out;
			}
			break;
		case OPT_WIDTH:
			if (!cli_parse_uint(optarg, &width) || width < 100 || width > 100000) {
				ret = cli_usage_error("export", "--width takes 100 to 100000, not '%s'",
						      optarg);
				goto out;
			}
			svg.width = (unsigned)width;
			break;
		}
	}
	if (!d.diff && (d.normalize || d.flags)) {
		ret = cli_usage_error("export", "--normalize and --ignore-module compare: they "
					  "need --diff");
		goto out;
	}
	if ((ret = d.diff ? cli_diff_args(&cc, argc, argv, &base)
			: cli_file_arg(&cc, argc, argv)) != CLI_NEXT)
		goto out;
	ret = EXIT_OK;
	if (output && !strcmp(output, "-"))
		output = NULL;
	if (!to)
		format = export_format_of_path(output);

	/* Names are all an export shows: no line tables to read. */
	cc.io.no_lines = true;
	if ((ret = cli_check_spec(&lens)) != CLI_NEXT)
		goto out;
	if ((ret = d.diff ? cli_load_diff(base, cc.path, cc.format, &cc.io, d.flags, &ps)
			: cli_load(cc.path, cc.format, &cc.io, &ps)) != CLI_NEXT)
		goto out;
	model_init(&m, ps);
	have_model = true;
	/* A differential folded file: "after", compared with "before", as dump shows it. */
	model_set_profile(&m, diff_first_profile(ps));
	if ((ret = cli_apply_spec(&lens, &m, cc.path)) != CLI_NEXT)
		goto out;
	ret = EXIT_OK;

	model_export_lens(&m, &el);
	el.title = cc.path;
	/* A comparison, or a differential folded file: the SVG shows the change. */
	if (d.diff && (ret = cli_check_units(ps, ps->profiles[m.lens.profile], base, cc.path)) !=
			    CLI_NEXT)
		goto out;
	ret = EXIT_OK;
	el.base = diff_other(ps, el.p);
	el.base_scale = d.normalize;
	if (m.inverted) {
		if (el.base) {
			ret = cli_usage_error("export", "--inverted and a comparison do not go "
						       "together");
			goto out;
		}
		inverted_export_lens(model_inverted(&m), &el, &ie);
	}
	if (zoom) {
		struct nav nv;
		uint32_t n;

		/* Inverted, the path reads from the leaf, as dump's --zoom. */
		if (m.inverted)
			nav_inverted(&nv, &model_inverted(&m)->tree);
		else
			nav_tree(&nv, model_tree(&m));
		n = nav_find_path(&nv, zoom);
		if (n != NAV_NONE)
			el.zoom = nv.ops->stack(&nv, n);
		if (el.zoom == STACK_ROOT) {
			struct strbuf sb = STRBUF_INIT;

			text_escape_str(&sb, zoom);
			cli_error("%s: no box on the call path %s", cc.path, sb.buf);
			strbuf_release(&sb);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (output && !(out = fopen(output, "w"))) {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, output);
		cli_error("cannot write %s: %s", sb.buf, strerror(errno));
		strbuf_release(&sb);
		ret = EXIT_INPUT;
		goto out;
	}
	if (!output && isatty(STDOUT_FILENO)) {
		ret = cli_usage_error("export", "not writing %s to a terminal: give -o OUT",
				      export_format_name(format));
		goto out;
	}
	ret = export_write(&el, format, &svg, out, &res, &err);
	if (output) {
		if (fclose(out) && !ret)
			ret = tf_error_set(&err, "cannot write output: %s", strerror(errno));
		out = stdout;
	}
	if (ret) {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, tf_error_text(&err));
		cli_error("%s", sb.buf);
		strbuf_release(&sb);
		ret = EXIT_INPUT;
	}
out:
	if (out != stdout)
		fclose(out);
	tf_error_release(&err);
	if (have_model)
		model_release(&m);
	lens_spec_release(&lens);
	return ret;
}
