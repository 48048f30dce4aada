#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/cli.h"
#include "tflame/layout.h"
#include "tflame/model.h"
#include "tflame/render.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

static const char dump_usage[] =
	"usage: tflame dump [OPTIONS] FILE\n"
	"\n"
	"Print a pane as text, laid out by the same code as the interactive view:\n"
	"one line per stack depth, each box its frame's name cut to its width,\n"
	"'|' closing each box, '.' for runs of boxes narrower than a cell.\n"
	"\n"
	"  --view=VIEW             left-heavy (default) or time-order\n"
	"  --width=W               columns (default 100)\n"
	"  --height=H              rows of boxes (default 30)\n"
	"  --zoom=FRAME;FRAME;...  zoom on the box of this call path, root first\n"
	"  --event=EVENT           the profile of EVENT (default: the first)\n"
	"  --ascii                 ASCII only ('~' for the ellipsis)\n"
	"  --format=FORMAT         read FILE as FORMAT (perf, folded); default: probe\n"
	"  --weight=period|samples weigh samples by period (default) or count them\n"
	"  -h, --help              show this help\n";

enum {
	OPT_VIEW = 256, OPT_WIDTH, OPT_HEIGHT, OPT_ZOOM, OPT_EVENT, OPT_ASCII,
};

static const struct option dump_options_table[] = {
	{ "view", required_argument, NULL, OPT_VIEW },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "height", required_argument, NULL, OPT_HEIGHT },
	{ "zoom", required_argument, NULL, OPT_ZOOM },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "ascii", no_argument, NULL, OPT_ASCII },
	CLI_COMMON_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

#define MAX_DUMP_WIDTH 10000
#define MAX_DUMP_HEIGHT 100000

/* Does the call path of stack s, root first, read "a;b;c"? */
static bool
stack_matches(const struct profile_set *ps, stack_id s, const char *path)
{
	size_t len = strlen(path);

	/* Walk from the leaf: compare the path's pieces from its end. */
	while (s != STACK_ROOT) {
		const struct frame *f = ps_frame(ps, ps_stack(ps, s)->frame);
		const char *name = ps_get(ps, f->name);
		size_t n = strlen(name), start;

		if (n > len)
			return false;
		start = len - n;
		if (memcmp(path + start, name, n) || (start && path[start - 1] != ';'))
			return false;
		len = start ? start - 1 : 0;
		s = ps_stack(ps, s)->parent;
		if (!start)
			return s == STACK_ROOT;
	}
	return len == 0;
}

/* The x range of the first box (tree node or chart box) on path. */
static bool
find_zoom(struct model *m, bool chart, const char *path, uint64_t *x0, uint64_t *x1)
{
	const struct profile_set *ps = m->ps;

	if (chart) {
		const struct chart *c = model_chart(m);

		for (uint32_t i = 0; i < c->nr_boxes; i++) {
			if (stack_matches(ps, c->boxes[i].stack, path)) {
				*x0 = c->boxes[i].x0;
				*x1 = c->boxes[i].x1;
				return true;
			}
		}
		return false;
	}
	for (stack_id s = 1; s < ps->nr_stacks; s++)
		if (stack_matches(ps, s, path) && calltree_node_range(model_tree(m), s, x0, x1))
			return true;
	return false;
}

static const char *
box_name(struct model *m, bool chart, const struct box *b)
{
	const struct profile_set *ps = m->ps;
	stack_id s = chart ? model_chart(m)->boxes[b->node].stack : b->node;

	return ps_get(ps, ps_frame(ps, ps_stack(ps, s)->frame)->name);
}

/*
 * One line per row: each box is its label, padded, and a '|' in its last
 * cell; merged runs are dots. Trailing blanks are trimmed so the output
 * diffs well.
 */
static void
print_rows(struct model *m, bool chart, const struct layout *l, const struct view *v,
	   bool utf8, struct strbuf *out)
{
	size_t i = 0;

	for (uint32_t row = v->first_row; row < v->first_row + v->nr_rows; row++) {
		size_t start = out->len;
		uint32_t col = 0;

		for (; i < l->nr && l->boxes[i].row == row; i++) {
			const struct box *b = &l->boxes[i];
			unsigned w = b->col1 - b->col0, used = 0;

			strbuf_addchars(out, ' ', b->col0 - col);
			if (b->flags & BOX_MERGED) {
				strbuf_addchars(out, '.', w);
			} else {
				const char *name = box_name(m, chart, b);

				if (w > 1)
					used = render_label(out, name, strlen(name), w - 1, utf8);
				strbuf_addchars(out, ' ', w - 1 - used);
				strbuf_addch(out, '|');
			}
			col = b->col1;
		}
		while (out->len > start && out->buf[out->len - 1] == ' ')
			strbuf_setlen(out, out->len - 1);
		strbuf_addch(out, '\n');
	}
}

int
cmd_dump(int argc, char **argv)
{
	struct cli_common cc = { .cmd = "dump", .usage = dump_usage };
	const char *event = NULL, *zoom = NULL, *path;
	unsigned long long width = 100, height = 30;
	bool chart = false, utf8 = true;
	struct profile_set *ps;
	struct model m;
	struct layout l;
	struct view v = { 0 };
	struct strbuf out = STRBUF_INIT;
	uint64_t total;
	int c, r, ret = EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", dump_options_table, NULL)) != -1) {
		if ((r = cli_common_option(&cc, c, argv)) == CLI_NEXT)
			continue;
		if (r != CLI_OWN)
			return r;
		switch (c) {
		case OPT_VIEW:
			if (!strcmp(optarg, "left-heavy"))
				chart = false;
			else if (!strcmp(optarg, "time-order"))
				chart = true;
			else
				return cli_usage_error("dump", "--view takes left-heavy or "
						       "time-order, not '%s'", optarg);
			break;
		case OPT_WIDTH:
			if (!cli_parse_uint(optarg, &width) || !width || width > MAX_DUMP_WIDTH)
				return cli_usage_error("dump", "--width takes 1 to %d, not '%s'",
						       MAX_DUMP_WIDTH, optarg);
			break;
		case OPT_HEIGHT:
			if (!cli_parse_uint(optarg, &height) || !height || height > MAX_DUMP_HEIGHT)
				return cli_usage_error("dump", "--height takes 1 to %d, not '%s'",
						       MAX_DUMP_HEIGHT, optarg);
			break;
		case OPT_ZOOM:
			zoom = optarg;
			break;
		case OPT_EVENT:
			event = optarg;
			break;
		case OPT_ASCII:
			utf8 = false;
			break;
		}
	}
	if ((r = cli_file_arg(&cc, argc, argv)) != CLI_NEXT)
		return r;
	path = cc.path;
	ps = cli_load(path, cc.format, &cc.io);
	if (!ps)
		return EXIT_INPUT;
	model_init(&m, ps);
	if (event) {
		struct profile *p = profile_set_find_profile(ps, event);

		if (!p) {
			cli_error("%s: no event named %s", path, event);
			model_release(&m);
			return EXIT_USAGE;
		}
		model_set_profile(&m, (size_t)profile_set_profile_index(ps, p));
	}

	total = chart ? model_chart(&m)->total : model_total(&m);
	v.x0 = 0;
	v.x1 = total ? total : 1;
	v.width = (uint32_t)width;
	v.first_row = 0;
	v.nr_rows = (uint32_t)height;
	if (zoom && !find_zoom(&m, chart, zoom, &v.x0, &v.x1)) {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, zoom);
		cli_error("%s: no box on the call path %s", path, sb.buf);
		strbuf_release(&sb);
		model_release(&m);
		return EXIT_USAGE;
	}

	strbuf_addf(&out, "%s  ", chart ? "time-order" : "left-heavy");
	text_escape_str(&out, path);
	if (*ps_get(ps, model_profile(&m)->name)) {
		strbuf_addstr(&out, "  ");
		text_escape_str(&out, ps_get(ps, model_profile(&m)->name));
	}
	strbuf_addstr(&out, "  weight ");
	profile_format_weight(model_profile(&m), v.x1 - v.x0, &out);
	strbuf_addf(&out, " of ");
	profile_format_weight(model_profile(&m), total, &out);
	if (zoom) {
		strbuf_addstr(&out, "  zoom ");
		text_escape_str(&out, zoom);
	}
	strbuf_addch(&out, '\n');

	layout_init(&l);
	if (chart)
		layout_chart(&l, model_chart(&m), &v);
	else
		layout_tree(&l, model_tree(&m), &v);
	print_rows(&m, chart, &l, &v, utf8, &out);
	fwrite(out.buf, 1, out.len, stdout);
	if (fflush(stdout)) {
		cli_error("cannot write output");
		ret = EXIT_INPUT;
	}
	strbuf_release(&out);
	layout_release(&l);
	model_release(&m);
	return ret;
}
