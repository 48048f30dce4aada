#include "config.h"

#include "tflame/export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/calltree.h"
#include "tflame/diff.h"
#include "tflame/error.h"
#include "tflame/json.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

static const char *const format_names[EXPORT_NR_FORMATS] = {
	[EXPORT_FOLDED] = "folded",
	[EXPORT_SPEEDSCOPE] = "speedscope",
	[EXPORT_SVG] = "svg",
};

const char *
export_format_name(enum export_format f)
{
	return f < EXPORT_NR_FORMATS ? format_names[f] : "";
}

bool
export_format_find(const char *name, enum export_format *out)
{
	for (int f = 0; f < EXPORT_NR_FORMATS; f++) {
		if (!strcmp(name, format_names[f])) {
			*out = (enum export_format)f;
			return true;
		}
	}
	return false;
}

enum export_format
export_format_of_path(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;

	if (dot && !strcmp(dot, ".svg"))
		return EXPORT_SVG;
	if (dot && !strcmp(dot, ".json"))
		return EXPORT_SPEEDSCOPE;
	return EXPORT_FOLDED;
}

const char *
export_format_extension(enum export_format f)
{
	static const char *const ext[EXPORT_NR_FORMATS] = {
		[EXPORT_FOLDED] = ".folded",
		[EXPORT_SPEEDSCOPE] = ".json",
		[EXPORT_SVG] = ".svg",
	};

	return f < EXPORT_NR_FORMATS ? ext[f] : "";
}

/* ------------------------------------------------------------- the lens */

/*
 * Per stack: whether it lies in the zoomed subtree. Parents come before
 * children in a set, so one pass in id order settles it, without walking
 * any path. NULL when there is no zoom (everything is in).
 */
static bool *
zoom_mask(const struct export_lens *l)
{
	const struct profile_set *ps = l->ps;
	bool *in;

	if (l->zoom == STACK_ROOT || l->zoom >= ps->nr_stacks)
		return NULL;
	in = xcalloc(ps->nr_stacks, sizeof(*in));
	in[l->zoom] = true;
	for (stack_id s = l->zoom + 1; s < ps->nr_stacks; s++)
		in[s] = in[ps->stacks[s].parent];
	return in;
}

/*
 * Per stack of l->ps, the exact weight of the kept samples that end there,
 * summed in 128 bits, when l has exact weights (a wide profile), else
 * NULL. Owned by the caller.
 */
static weight_sum *
exact_stack_weights(const struct export_lens *l)
{
	const struct profile *p = l->p;
	weight_sum *w;

	if (!l->exact_weight)
		return NULL;
	w = xcalloc(l->ps->nr_stacks, sizeof(*w));
	for (size_t i = 0; i < p->nr_samples; i++) {
		stack_id s = l->sample_stack ? l->sample_stack(l->ctx, i) : p->stack[i];

		if (s == EXPORT_DROP || s == STACK_ROOT)
			continue;
		if (l->threads && !l->threads[p->thread[i]])
			continue;
		w[s] += l->exact_weight[i];
	}
	return w;
}

/* l->p in the input's units: itself, or the wide profile it was scaled from. */
static struct profile
exact_profile(const struct export_lens *l)
{
	struct profile q = *l->p;

	q.weight_shift = 0;
	return q;
}

/* The weights of the stacks in the zoomed subtree; the others 0. */
static uint64_t *
zoomed_weights(const struct export_lens *l, const bool *in)
{
	uint64_t *w = xmalloc(sizeof(*w) * l->ps->nr_stacks);

	for (stack_id s = 0; s < l->ps->nr_stacks; s++)
		w[s] = !in || in[s] ? l->stack_w[s] : 0;
	return w;
}

/*
 * The frames of stack s, root first, into *path (grown as needed);
 * returns how many. A walk up the parent links: no recursion.
 */
static uint32_t
stack_path(const struct profile_set *ps, stack_id s, frame_id **path, uint32_t *alloc)
{
	uint32_t n = ps->stacks[s].depth;

	if (n > *alloc) {
		*alloc = n;
		*path = xrealloc(*path, sizeof(**path) * n);
	}
	for (uint32_t i = n; i > 0 && s != STACK_ROOT; s = ps->stacks[s].parent)
		(*path)[--i] = ps->stacks[s].frame;
	return n;
}

static int
write_buf(FILE *out, struct strbuf *sb, struct tf_error *err)
{
	if (sb->len && fwrite(sb->buf, 1, sb->len, out) != sb->len)
		return tf_error_set(err, "cannot write output: %s", strerror(errno));
	strbuf_reset(sb);
	return 0;
}

/* Flush sb to out once it holds this much: big writes, bounded memory. */
#define FLUSH_AT (1 << 16)

/* ------------------------------------------------------------- folded */

/* A frame name for a folded line: ';' would split it, a line break end it. */
static void
add_folded_name(struct strbuf *sb, const struct profile_set *ps, frame_id f)
{
	str_id name = ps->frames[f].name;
	const char *s = ps_get(ps, name);
	size_t len = intern_len(&ps->strings, name), start = sb->len;

	strbuf_add(sb, s, len);
	for (size_t i = start; i < sb->len; i++) {
		if (sb->buf[i] == ';')
			sb->buf[i] = ':';
		else if (sb->buf[i] == '\n' || sb->buf[i] == '\r' || !sb->buf[i])
			sb->buf[i] = ' ';
	}
}

static int
cmp_lines(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * One line per stack with weight, its frames joined by ';', sorted by
 * byte order as stackcollapse-perf.pl sorts: the lines are built in one
 * buffer, NUL-separated, and their offsets sorted.
 */
static int
write_folded(const struct export_lens *l, const bool *in, FILE *out,
	     struct export_result *res, struct tf_error *err)
{
	const struct profile_set *ps = l->ps;
	struct strbuf lines = STRBUF_INIT, sb = STRBUF_INIT;
	size_t *at = NULL, nr = 0, alloc = 0;
	const char **line;
	frame_id *path = NULL;
	uint32_t alloc_path = 0;
	int ret = 0;
	weight_sum *exact = exact_stack_weights(l);
	struct profile q = exact_profile(l);

	for (stack_id s = 1; s < ps->nr_stacks; s++) {
		uint32_t n;

		if ((exact ? !exact[s] : !l->stack_w[s]) || (in && !in[s]))
			continue;
		ALLOC_GROW(at, nr, alloc);
		at[nr++] = lines.len;
		n = stack_path(ps, s, &path, &alloc_path);
		for (uint32_t i = 0; i < n; i++) {
			if (i)
				strbuf_addch(&lines, ';');
			add_folded_name(&lines, ps, path[i]);
		}
		strbuf_addch(&lines, ' ');
		if (exact)
			profile_format_weight_sum(&q, exact[s], &lines);
		else
			profile_format_weight(l->p, l->stack_w[s], &lines);
		strbuf_addch(&lines, '\0');
	}
	/* The buffer is built: pointers into it stay valid now. */
	line = xmalloc(sizeof(*line) * (nr ? nr : 1));
	for (size_t i = 0; i < nr; i++)
		line[i] = lines.buf + at[i];
	qsort(line, nr, sizeof(*line), cmp_lines);
	for (size_t i = 0; i < nr && !ret; i++) {
		strbuf_addstr(&sb, line[i]);
		strbuf_addch(&sb, '\n');
		if (sb.len >= FLUSH_AT)
			ret = write_buf(out, &sb, err);
	}
	if (!ret)
		ret = write_buf(out, &sb, err);
	res->items = nr;
	free(line);
	free(at);
	free(path);
	free(exact);
	strbuf_release(&lines);
	strbuf_release(&sb);
	return ret;
}

/* ---------------------------------------------------------- speedscope */

/* The units speedscope knows; what it does not, "none". */
static const char *
speedscope_unit(const struct profile *p)
{
	if (p->unit == UNIT_NANOSECONDS && !p->weight_decimals)
		return "nanoseconds";
	if (p->unit == UNIT_BYTES)
		return "bytes";
	return "none";
}

/* One kept sample: its thread, time and view stack, for the sort. */
struct sp_sample {
	thread_id thread;
	stack_id stack;
	int64_t time;
	size_t index;
};

static int
cmp_samples(const void *a, const void *b)
{
	const struct sp_sample *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * A thread's profile name as speedscope names the threads of a perf
 * profile: "comm pid: P tid: T", each part where it is known, the comm
 * being all of the thread's names ("sh→python3" after an exec) as the
 * thread picker shows them. tflame's speedscope importer reads the thread
 * back from it.
 */
static void
add_thread_name(struct strbuf *sb, const struct profile_set *ps, thread_id t)
{
	const struct thread *th = &ps->threads[t];
	size_t start = sb->len;

	profile_thread_names(ps, t, "\xe2\x86\x92", sb);
	if (th->pid >= 0)
		strbuf_addf(sb, "%spid: %lld", sb->len > start ? " " : "", (long long)th->pid);
	if (th->tid >= 0)
		strbuf_addf(sb, "%stid: %lld", sb->len > start ? " " : "", (long long)th->tid);
	if (sb->len == start)
		strbuf_addstr(sb, "thread");
}

static void
add_quoted(struct strbuf *sb, const struct profile_set *ps, str_id s)
{
	json_quote(sb, ps_get(ps, s), intern_len(&ps->strings, s));
}

/* Sample i's weight in the input's units (l->exact_weight where l has them). */
static uint64_t
sample_weight(const struct export_lens *l, size_t i)
{
	return l->exact_weight ? l->exact_weight[i] : l->p->weight[i];
}

/*
 * The samples kept by the lens, sorted by thread then time (input order
 * where there are no times), into *out; returns how many.
 */
static size_t
kept_samples(const struct export_lens *l, const bool *in, struct sp_sample **out)
{
	const struct profile *p = l->p;
	struct sp_sample *v = xmalloc(sizeof(*v) * (p->nr_samples ? p->nr_samples : 1));
	size_t nr = 0;

	for (size_t i = 0; i < p->nr_samples; i++) {
		stack_id s = l->sample_stack ? l->sample_stack(l->ctx, i) : p->stack[i];

		if (s == EXPORT_DROP || s == STACK_ROOT || !sample_weight(l, i))
			continue;
		if (l->threads && !l->threads[p->thread[i]])
			continue;
		if (in && !in[s])
			continue;
		v[nr].thread = ps_thread(l->ps, p->thread[i]);
		v[nr].stack = s;
		v[nr].time = p->has_time ? p->time[i] : 0;
		v[nr].index = i;
		nr++;
	}
	qsort(v, nr, sizeof(*v), cmp_samples);
	*out = v;
	return nr;
}

static int
write_speedscope(const struct export_lens *l, const bool *in, FILE *out,
		 struct export_result *res, struct tf_error *err)
{
	const struct profile_set *ps = l->ps;
	const struct profile *p = l->p;
	struct strbuf sb = STRBUF_INIT;
	struct sp_sample *v;
	size_t nr = kept_samples(l, in, &v);
	uint32_t *index = xmalloc(sizeof(*index) * (ps->nr_frames ? ps->nr_frames : 1));
	bool *used = xcalloc(ps->nr_stacks, sizeof(*used));
	frame_id *path = NULL;
	uint32_t nr_index = 0, alloc_path = 0, active = 0;
	weight_sum heaviest = 0;
	struct profile q = exact_profile(l);
	int ret = 0;

	/*
	 * The frames of the kept samples' paths, numbered in stack order
	 * (parents first, children last): marked per sample's stack, then
	 * spread to the parents in one pass from the deepest id down.
	 */
	memset(index, 0xff, sizeof(*index) * ps->nr_frames);
	for (size_t i = 0; i < nr; i++)
		used[v[i].stack] = true;
	for (stack_id s = ps->nr_stacks; s-- > 1;)
		if (used[s])
			used[ps->stacks[s].parent] = true;

	strbuf_addstr(&sb, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
			   "\"shared\":{\"frames\":[");
	for (stack_id s = 1; s < ps->nr_stacks; s++) {
		const struct frame *f = &ps->frames[ps->stacks[s].frame];

		/* A process root frame: the thread's profile is named after it. */
		if (!used[s] || index[ps->stacks[s].frame] != UINT32_MAX ||
		    (f->flags & FRAME_PROCESS))
			continue;
		index[ps->stacks[s].frame] = nr_index;
		strbuf_addstr(&sb, nr_index++ ? ",\n{\"name\":" : "\n{\"name\":");
		add_quoted(&sb, ps, f->name);
		/*
		 * A frame without a source file names its module there, as
		 * speedscope's perf importer does: two functions of one name in
		 * two modules stay two.
		 */
		if (f->file != STR_EMPTY || f->module != STR_EMPTY) {
			strbuf_addstr(&sb, ",\"file\":");
			add_quoted(&sb, ps, f->file != STR_EMPTY ? f->file : f->module);
		}
		if (f->flags & FRAME_HAS_LINE && f->line)
			strbuf_addf(&sb, ",\"line\":%u", f->line);
		strbuf_addch(&sb, '}');
		if (sb.len >= FLUSH_AT && (ret = write_buf(out, &sb, err)))
			goto out;
	}
	strbuf_addstr(&sb, "]},\n\"profiles\":[");

	/*
	 * One sampled profile per thread: its samples, then its weights.
	 * In ns, a thread starts where its first sample is in the profile,
	 * so that the threads keep their places on one time axis.
	 */
	for (size_t first = 0, end; first < nr && !ret; first = end) {
		weight_sum total = 0, start = 0;

		for (end = first; end < nr && v[end].thread == v[first].thread; end++)
			total += sample_weight(l, v[end].index);
		if (total > heaviest || !res->threads) {
			heaviest = total;
			active = res->threads;
		}
		if (!strcmp(speedscope_unit(p), "nanoseconds") && p->has_time &&
		    v[first].time > p->time_min)
			start = (uint64_t)v[first].time - (uint64_t)p->time_min;
		strbuf_addstr(&sb, res->threads++ ? ",\n" : "\n");
		strbuf_addstr(&sb, "{\"type\":\"sampled\",\"name\":");
		{
			struct strbuf name = STRBUF_INIT;

			add_thread_name(&name, ps, v[first].thread);
			json_quote(&sb, name.buf, name.len);
			strbuf_release(&name);
		}
		strbuf_addf(&sb, ",\"unit\":\"%s\",\"startValue\":", speedscope_unit(p));
		weight_sum_format(start, &sb);
		strbuf_addstr(&sb, ",\"endValue\":");
		profile_format_weight_sum(&q, start + total, &sb);
		strbuf_addstr(&sb, ",\n\"samples\":[");
		for (size_t i = first; i < end; i++) {
			uint32_t n = stack_path(ps, v[i].stack, &path, &alloc_path);

			strbuf_addstr(&sb, i > first ? ",[" : "[");
			for (uint32_t k = 0, nr_out = 0; k < n; k++) {
				if (index[path[k]] == UINT32_MAX)
					continue;
				if (nr_out++)
					strbuf_addch(&sb, ',');
				strbuf_add_uint(&sb, index[path[k]]);
			}
			strbuf_addch(&sb, ']');
			if (sb.len >= FLUSH_AT && (ret = write_buf(out, &sb, err)))
				goto out;
		}
		strbuf_addstr(&sb, "],\n\"weights\":[");
		for (size_t i = first; i < end; i++) {
			if (i > first)
				strbuf_addch(&sb, ',');
			profile_format_weight_sum(&q, sample_weight(l, v[i].index), &sb);
			if (sb.len >= FLUSH_AT && (ret = write_buf(out, &sb, err)))
				goto out;
		}
		strbuf_addstr(&sb, "]}");
	}
	/* The file, and the event where there are several; speedscope opens the heaviest thread. */
	strbuf_addstr(&sb, "],\n\"name\":");
	{
		struct strbuf name = STRBUF_INIT;

		strbuf_addstr(&name, l->title ? l->title : "tflame");
		if (ps->nr_profiles > 1 && *ps_get(ps, p->name))
			strbuf_addf(&name, " (%s)", ps_get(ps, p->name));
		json_quote(&sb, name.buf, name.len);
		strbuf_release(&name);
	}
	strbuf_addf(&sb, ",\"activeProfileIndex\":%" PRIu32 ",\"exporter\":\"tflame\"}\n",
		    active);
	ret = write_buf(out, &sb, err);
	res->items = nr;
out:
	free(v);
	free(index);
	free(used);
	free(path);
	strbuf_release(&sb);
	return ret;
}

/* ---------------------------------------------------------------- SVG */

/* flamegraph.pl's geometry, so that its boxes and ours can be compared. */
#define SVG_WIDTH 1200
#define SVG_FRAME_HEIGHT 16
#define SVG_FONT_SIZE 12
#define SVG_FONT_WIDTH 0.59
#define SVG_XPAD 10
#define SVG_YPAD1 (SVG_FONT_SIZE * 3)
#define SVG_YPAD2 (SVG_FONT_SIZE * 2 + 10)
#define SVG_FRAME_PAD 1

/*
 * Text from a profile as XML character data or an attribute value:
 * markup characters as entities, and what XML 1.0 cannot hold at all
 * (control characters, invalid UTF-8) as U+FFFD, so that any name makes
 * a well-formed document.
 */
static void
add_xml(struct strbuf *sb, const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		uint32_t cp;
		size_t n;

		if (c < 0x80) {
			if (c == '&')
				strbuf_addstr(sb, "&amp;");
			else if (c == '<')
				strbuf_addstr(sb, "&lt;");
			else if (c == '>')
				strbuf_addstr(sb, "&gt;");
			else if (c == '"')
				strbuf_addstr(sb, "&quot;");
			else if (c < 0x20 && c != '\t')
				strbuf_addstr(sb, "\xef\xbf\xbd");
			else
				strbuf_addch(sb, c);
			i++;
			continue;
		}
		n = text_utf8_decode((const unsigned char *)s + i, len - i, &cp);
		if (!n || (cp >= 0x80 && cp < 0xa0) || cp == 0xfffe || cp == 0xffff) {
			strbuf_addstr(sb, "\xef\xbf\xbd");
			i += n ? n : 1;
		} else {
			strbuf_add(sb, s + i, n);
			i += n;
		}
	}
}

/*
 * The script: flamegraph.pl's interactions, written anew. Each box is a
 * <g> with a title (the name, then its figures in parentheses), a rect
 * and a text; the geometry is read back from the rects.
 */
static const char svg_script[] =
	"<style type=\"text/css\">\n"
	"\ttext { font-family:Verdana; font-size:12px; fill:rgb(0,0,0); }\n"
	"\t.f:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
	"\t#search, #unzoom { cursor:pointer; }\n"
	"</style>\n"
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"var boxes = [], details, matched, unzoombtn, searchbtn, W, XPAD = 10;\n"
	"function init() {\n"
	"\tdetails = document.getElementById('details').firstChild;\n"
	"\tmatched = document.getElementById('matched').firstChild;\n"
	"\tunzoombtn = document.getElementById('unzoom');\n"
	"\tsearchbtn = document.getElementById('search');\n"
	"\tW = document.documentElement.width.baseVal.value - 2 * XPAD;\n"
	"\tvar gs = document.getElementsByTagName('g');\n"
	"\tfor (var i = 0; i < gs.length; i++) {\n"
	"\t\tvar g = gs[i], r = g.getElementsByTagName('rect')[0];\n"
	"\t\tvar t = g.getElementsByTagName('title')[0].textContent;\n"
	"\t\tvar b = { g: g, r: r, t: g.getElementsByTagName('text')[0],\n"
	"\t\t\tname: t.replace(/ \\([^(]*\\)$/, ''), info: t,\n"
	"\t\t\tx: parseFloat(r.getAttribute('x')), w: parseFloat(r.getAttribute('width')),\n"
	"\t\t\ty: parseFloat(r.getAttribute('y')), fill: r.getAttribute('fill') };\n"
	"\t\tboxes.push(b);\n"
	"\t\tg.onmouseover = (function (b) { return function () { details.nodeValue = b.info; }; })(b);\n"
	"\t\tg.onmouseout = function () { details.nodeValue = ' '; };\n"
	"\t\tg.onclick = (function (b) { return function () { zoom(b); }; })(b);\n"
	"\t}\n"
	"\twindow.addEventListener('keydown', function (e) {\n"
	"\t\tif (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) {\n"
	"\t\t\te.preventDefault(); search_prompt();\n"
	"\t\t} else if (e.keyCode === 27) { unzoom(); }\n"
	"\t});\n"
	"}\n"
	"function label(b, x, w) {\n"
	"\tvar n = Math.floor(w / (12 * 0.59));\n"
	"\tb.t.setAttribute('x', x + 3);\n"
	"\tb.t.textContent = n < 3 ? '' : n >= b.name.length ? b.name\n"
	"\t\t: b.name.substring(0, n - 2) + '..';\n"
	"}\n"
	"function place(b, x, w) {\n"
	"\tb.r.setAttribute('x', x.toFixed(1));\n"
	"\tb.r.setAttribute('width', w.toFixed(1));\n"
	"\tlabel(b, x, w);\n"
	"}\n"
	"function zoom(z) {\n"
	"\tvar ratio = W / z.w, f = 0.0001, up = z.y;\n"
	"\tunzoombtn.style.opacity = '1.0';\n"
	"\tfor (var i = 0; i < boxes.length; i++) {\n"
	"\t\tvar b = boxes[i], below = ICICLE ? b.y < up : b.y > up;\n"
	"\t\tif (below && b.x <= z.x + f && b.x + b.w + f >= z.x + z.w) {\n"
	"\t\t\tb.g.style.display = 'block'; b.g.style.opacity = '0.5';\n"
	"\t\t\tplace(b, XPAD, W);\n"
	"\t\t} else if (!below && b.x + f >= z.x && b.x + f < z.x + z.w) {\n"
	"\t\t\tb.g.style.display = 'block'; b.g.style.opacity = '1';\n"
	"\t\t\tplace(b, XPAD + (b.x - z.x) * ratio, b.w * ratio);\n"
	"\t\t} else {\n"
	"\t\t\tb.g.style.display = 'none';\n"
	"\t\t}\n"
	"\t}\n"
	"}\n"
	"function unzoom() {\n"
	"\tunzoombtn.style.opacity = '0.0';\n"
	"\tfor (var i = 0; i < boxes.length; i++) {\n"
	"\t\tvar b = boxes[i];\n"
	"\t\tb.g.style.display = 'block'; b.g.style.opacity = '1';\n"
	"\t\tplace(b, b.x, b.w);\n"
	"\t}\n"
	"}\n"
	"var searching = false;\n"
	"function search_prompt() {\n"
	"\tif (searching) {\n"
	"\t\tfor (var i = 0; i < boxes.length; i++) boxes[i].r.setAttribute('fill', boxes[i].fill);\n"
	"\t\tsearching = false; searchbtn.firstChild.nodeValue = 'Search';\n"
	"\t\tmatched.nodeValue = ' ';\n"
	"\t\treturn;\n"
	"\t}\n"
	"\tvar term = prompt('Search for (a regular expression, e.g. ^ext4_)', '');\n"
	"\tif (term) search(term);\n"
	"}\n"
	"function search(term) {\n"
	"\tvar re = new RegExp(term), matches = {}, max = 0;\n"
	"\tfor (var i = 0; i < boxes.length; i++) {\n"
	"\t\tvar b = boxes[i];\n"
	"\t\tif (b.w > max) max = b.w;\n"
	"\t\tif (!re.test(b.name)) continue;\n"
	"\t\tb.r.setAttribute('fill', 'rgb(230,0,230)');\n"
	"\t\tif (!(b.x in matches) || b.w > matches[b.x]) matches[b.x] = b.w;\n"
	"\t}\n"
	"\tsearching = true; searchbtn.firstChild.nodeValue = 'Reset Search';\n"
	"\t/*\n"
	"\t * The matched share as flamegraph.pl counts it: the widest match\n"
	"\t * at each x, then from the left each match that starts past the\n"
	"\t * last one counted (the boxes above a match lie within it).\n"
	"\t */\n"
	"\tvar xs = Object.keys(matches).map(parseFloat).sort(function (a, b) { return a - b; });\n"
	"\tvar sum = 0, lastx = -1, lastw = 0;\n"
	"\tfor (var i = 0; i < xs.length; i++) {\n"
	"\t\tif (xs[i] < lastx + lastw - 0.0001) continue;\n"
	"\t\tlastx = xs[i]; lastw = matches[xs[i]]; sum += lastw;\n"
	"\t}\n"
	"\tvar pct = max ? 100 * sum / max : 0;\n"
	"\tmatched.nodeValue = 'Matched: ' + (pct != 100 ? pct.toFixed(1) : '100') + '%';\n"
	"}\n"
	"]]></script>\n";

/*
 * flamegraph.pl's colour of a change in a differential graph: red for
 * growth, blue for shrinking, white for none, deeper towards the biggest
 * change of the graph (max, > 0).
 */
static uint32_t
delta_rgb(int64_t delta, uint64_t max)
{
	uint32_t r = 255, g = 255, b = 255;
	double d = (double)delta, m = (double)max;

	if (delta > 0)
		g = b = (uint32_t)(210 * (m - d) / m);
	else if (delta < 0)
		r = g = (uint32_t)(210 * (m + d) / m);
	return r << 16 | g << 8 | b;
}

/*
 * The length of name less an annotation of stackcollapse-perf.pl's
 * (_[k] kernel, _[j] JIT, _[i] inlined, _[w] waker), which flamegraph.pl
 * strips from its labels and titles.
 */
static size_t
svg_name_len(const char *name, size_t len)
{
	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']' &&
	    strchr("kwij", name[len - 2]))
		return len - 4;
	return len;
}

/*
 * A box's weight in its title, as flamegraph.pl's "1,234 samples": a
 * count says samples, a time its unit once ("15.4 s"), other amounts
 * their unit.
 */
static void
add_svg_amount(struct strbuf *sb, const struct profile *p, uint64_t weight)
{
	profile_format_amount(p, weight, sb);
	if (p->unit == UNIT_NONE || p->unit == UNIT_SAMPLES)
		strbuf_addstr(sb, " samples");
	else if (p->unit != UNIT_NANOSECONDS)
		strbuf_addf(sb, " %s", weight_unit_name(p->unit));
}

/* A position in tenths of a pixel (never negative), as the SVG writes it: "12.3". */
static void
add_tenths(struct strbuf *sb, int64_t t)
{
	strbuf_addf(sb, "%lld.%lld", (long long)t / 10, (long long)t % 10);
}

/*
 * One box: its <g> with the title, the rect and the (cut) label. The
 * rect runs from x1 to x2 (tenths of a pixel, rounded from x and x + w
 * as flamegraph.pl rounds both edges, so that neighbours tile); the
 * label fits the unrounded width w.
 */
static void
add_box(struct strbuf *sb, const struct profile *p, const char *name, size_t len,
	uint64_t weight, uint64_t all, const int64_t *delta, double x, double w, double y,
	uint32_t rgb, bool root)
{
	double h = SVG_FRAME_HEIGHT - SVG_FRAME_PAD;
	size_t chars = (size_t)(w / (SVG_FONT_SIZE * SVG_FONT_WIDTH));
	/* Positions are never negative: rounding is adding a half. */
	int64_t x1 = (int64_t)(x * 10 + 0.5), x2 = (int64_t)((x + w) * 10 + 0.5);

	len = svg_name_len(name, len);
	strbuf_addstr(sb, "<g class=\"f\"><title>");
	add_xml(sb, name, len);
	strbuf_addstr(sb, " (");
	add_svg_amount(sb, p, weight);
	if (root)
		strbuf_addstr(sb, ", 100%");
	else
		strbuf_addf(sb, ", %.2f%%", all ? 100.0 * (double)weight / (double)all : 0.0);
	if (delta)
		strbuf_addf(sb, "; %s%.2f%%", *delta > 0 ? "+" : "",
			    all ? 100.0 * (double)*delta / (double)all : 0.0);
	strbuf_addstr(sb, ")</title><rect x=\"");
	add_tenths(sb, x1);
	strbuf_addf(sb, "\" y=\"%.1f\" width=\"", y);
	add_tenths(sb, x2 - x1);
	strbuf_addf(sb, "\" height=\"%.1f\" fill=\"rgb(%u,%u,%u)\" rx=\"2\" ry=\"2\"/>", h,
		    rgb >> 16, rgb >> 8 & 0xff, rgb & 0xff);
	strbuf_addf(sb, "<text x=\"%.2f\" y=\"%.2f\">", x + 3, y + h / 2 + 3);
	/* As flamegraph.pl: room for one character and two dots, or nothing. */
	if (chars >= 3) {
		size_t cut = len, keep = len;

		/* Count characters, not bytes: cut between UTF-8 sequences. */
		for (size_t i = 0, c = 0; i < len; i++) {
			if (((unsigned char)name[i] & 0xc0) == 0x80)
				continue;
			if (c == chars - 2)
				keep = i;
			if (c++ == chars) {
				cut = keep;
				break;
			}
		}
		add_xml(sb, name, cut);
		if (cut < len)
			strbuf_addstr(sb, "..");
	}
	strbuf_addstr(sb, "</text></g>\n");
}

/*
 * Per stack: the weight of l->base's samples that end there (the same
 * threads and zoom as the lens), scaled to the lens's total all with
 * base_scale.
 */
static uint64_t *
base_weights(const struct export_lens *l, const bool *in, uint64_t all)
{
	const struct profile_set *ps = l->ps;
	const struct profile *b = l->base;
	uint64_t *t = xcalloc(ps->nr_stacks, sizeof(*t)), sum = 0;

	for (int pass = 0; pass < 1 + l->base_scale; pass++) {
		for (size_t i = 0; i < b->nr_samples; i++) {
			stack_id s = b->stack[i];
			uint64_t w = diff_same_decimals(b->weight[i], b, l->p);

			if ((l->threads && !l->threads[b->thread[i]]) || (in && !in[s]))
				continue;
			/*
			 * Scaled, each sample on its own as difffolded.pl -n
			 * scales each line, once the first pass has the sum.
			 */
			if (!l->base_scale)
				t[s] += w;
			else if (!pass)
				sum += w;
			else
				t[s] += diff_scale(w, sum, all);
		}
	}
	return t;
}

/*
 * flamegraph.pl splits a line's stack with Perl's split, which drops
 * empty fields at the end: a;b; and a;b;; are a;b, their weight and
 * change b's, while the empty frame of a;;b is a box. So the weight of
 * a stack whose last frames have empty names moves to the deepest
 * frame above them with a name (the root if none has). Parents come
 * before children: one pass, no walk up. Returns the weight moved to
 * each stack, for place_kids(), or NULL when no name is empty.
 */
static uint64_t *
perl_stacks(const struct profile_set *ps, uint64_t *w, uint64_t *before)
{
	stack_id *to = NULL;
	uint64_t *moved;

	for (stack_id s = 1; s < ps->nr_stacks; s++) {
		const struct frame *f = &ps->frames[ps->stacks[s].frame];

		if (f->name != STR_EMPTY && intern_len(&ps->strings, f->name))
			continue;
		if (!to) {
			to = xmalloc(sizeof(*to) * ps->nr_stacks);
			for (stack_id k = 0; k < ps->nr_stacks; k++)
				to[k] = k;
		}
		to[s] = to[ps->stacks[s].parent];
	}
	if (!to)
		return NULL;
	moved = xcalloc(ps->nr_stacks, sizeof(*moved));
	for (stack_id s = 1; s < ps->nr_stacks; s++) {
		if (to[s] == s)
			continue;
		moved[to[s]] += w[s];
		w[to[s]] += w[s];
		w[s] = 0;
		if (before) {
			before[to[s]] += before[s];
			before[s] = 0;
		}
	}
	free(to);
	return moved;
}

/* A child box to place: its name, for flamegraph.pl's order. */
struct svg_kid {
	const char *name;
	size_t len;
	char next;      /* what follows the name on its first line: ' ' or ';' */
	stack_id stack;
};

/*
 * The order of flamegraph.pl's sorted lines: byte order of the names,
 * each followed by what comes next on its first line, the blank before
 * the count of its own weight if it has any, else the ';' before its
 * callees. So "pyenv-x" comes before a "pyenv" that only calls ('-' is
 * below ';'), after one that has weight of its own (' ' is below '-').
 */
static int
cmp_svg_kids(const void *a, const void *b)
{
	const struct svg_kid *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);

	if (c)
		return c;
	if (x->len == y->len)
		return 0;
	if (x->len < y->len)
		return (unsigned char)y->name[n] < (unsigned char)x->next ? 1 : -1;
	return (unsigned char)x->name[n] < (unsigned char)y->next ? -1 : 1;
}

/*
 * Whether child k sorts before the lines of s that end in empty frames
 * (perl_stacks()): at the root such a line starts with ';', as a child
 * of no name would; below, its count follows the ';' after a blank.
 */
static bool
before_moved(const struct svg_kid *k, stack_id s)
{
	if (!k->len)
		return false;
	return s == STACK_ROOT ? (unsigned char)k->name[0] < ';' : (unsigned char)k->name[0] < ' ';
}

/*
 * Place s's children as flamegraph.pl does, which merges the folded
 * lines sorted by byte order: s's own weight first (its line sorts before
 * its callees'), then the children by name, each from where the last
 * ended, the ones too narrow to draw taking their room too; the weight
 * of lines that end in empty frames (moved[s]) where those lines sort.
 * off[] is in weight from the left edge. kids is scratch, grown as
 * needed.
 */
static void
place_kids(const struct profile_set *ps, const struct calltree *t, const uint64_t *moved,
	   stack_id s, uint64_t *off, struct svg_kid **kids, size_t *alloc)
{
	uint32_t nk;
	const stack_id *k = calltree_kids(t, s, &nk);
	uint64_t pos = t->total[s], later = moved ? moved[s] : 0;

	if (nk > *alloc) {
		*alloc = nk;
		*kids = xreallocarray(*kids, nk, sizeof(**kids));
	}
	for (uint32_t i = 0; i < nk; i++) {
		str_id name = ps->frames[ps->stacks[k[i]].frame].name;
		uint32_t ngk;
		const stack_id *gk = calltree_kids(t, k[i], &ngk);
		uint64_t own = t->total[k[i]] - (moved ? moved[k[i]] : 0);

		for (uint32_t j = 0; j < ngk; j++)
			own -= t->total[gk[j]];
		(*kids)[i].name = ps_get(ps, name);
		(*kids)[i].len = intern_len(&ps->strings, name);
		(*kids)[i].next = own ? ' ' : ';';
		(*kids)[i].stack = k[i];
		pos -= t->total[k[i]];
	}
	qsort(*kids, nk, sizeof(**kids), cmp_svg_kids);
	pos += off[s] - later;
	for (uint32_t i = 0; i < nk; i++) {
		if (later && !before_moved(&(*kids)[i], s)) {
			pos += later;
			later = 0;
		}
		off[(*kids)[i].stack] = pos;
		pos += t->total[(*kids)[i].stack];
	}
}

static int
write_svg(const struct export_lens *l, const bool *in, const struct export_svg_options *o,
	  FILE *out, struct export_result *res, struct tf_error *err)
{
	const struct profile_set *ps = l->ps;
	uint64_t *w = zoomed_weights(l, in);
	struct calltree t;
	struct strbuf sb = STRBUF_INIT;
	unsigned width = o->width ? o->width : SVG_WIDTH;
	double per, min_weight, height;
	uint64_t all;
	uint32_t depth_max = 0;
	/*
	 * A differential graph, after flamegraph.pl: a box's change is that
	 * of the samples ending in it (its self weight), its colour that
	 * change against the biggest of any stack (at least 1).
	 */
	uint64_t *before = NULL, max_delta = 1;
	stack_id *todo = NULL;
	size_t nr_todo = 0, alloc_todo = 0, alloc_kids = 0;
	struct svg_kid *kids_by_name = NULL;
	uint64_t *off = xcalloc(ps->nr_stacks, sizeof(*off)), *moved;
	int ret = 0;

	all = 0;
	for (stack_id s = 0; s < ps->nr_stacks; s++)
		all += w[s];
	if (l->base)
		before = base_weights(l, in, all);
	/* flamegraph.pl reads a;b; as a;b: see perl_stacks(). */
	moved = perl_stacks(ps, w, before);
	calltree_build(&t, ps, w);
	per = all ? (double)(width - 2 * SVG_XPAD) / (double)all : 0;
	/* flamegraph.pl: a box narrower than minwidth_time goes. */
	min_weight = o->minwidth_percent ? (double)all * o->minwidth / 100.0
					 : per > 0 ? o->minwidth / per : 0;

	/* The depth of the deepest box kept: the image's height. */
	for (stack_id s = 1; s < ps->nr_stacks; s++)
		if (t.total[s] && (double)t.total[s] >= min_weight && ps->stacks[s].depth > depth_max)
			depth_max = ps->stacks[s].depth;
	height = (double)(depth_max + 1) * SVG_FRAME_HEIGHT + SVG_YPAD1 + SVG_YPAD2;
	if (before) {
		for (stack_id s = 1; s < ps->nr_stacks; s++) {
			uint64_t d = w[s] > before[s] ? w[s] - before[s] : before[s] - w[s];

			if (d > max_delta)
				max_delta = d;
		}
	}

	strbuf_addf(&sb, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
			 "<svg version=\"1.1\" width=\"%u\" height=\"%.0f\" "
			 "onload=\"init(evt)\" viewBox=\"0 0 %u %.0f\" "
			 "xmlns=\"http://www.w3.org/2000/svg\" "
			 "xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
			 "<!-- Flame graph written by tflame; the boxes as flamegraph.pl "
			 "draws them. -->\n",
		    width, height, width, height);
	strbuf_addf(&sb, "<script type=\"text/ecmascript\"><![CDATA[\nvar ICICLE = %s;\n"
			 "]]></script>\n",
		    o->icicle ? "true" : "false");
	strbuf_addstr(&sb, svg_script);
	strbuf_addf(&sb, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%.0f\" "
			 "fill=\"rgb(248,248,248)\"/>\n",
		    width, height);
	strbuf_addf(&sb, "<text x=\"%u\" y=\"24\" text-anchor=\"middle\" "
			 "style=\"font-size:17px\">",
		    width / 2);
	add_xml(&sb, l->title ? l->title : "Flame Graph", strlen(l->title ? l->title : "Flame Graph"));
	strbuf_addstr(&sb, "</text>\n");
	strbuf_addf(&sb, "<text id=\"details\" x=\"%d\" y=\"%.0f\"> </text>\n", SVG_XPAD,
		    height - SVG_YPAD2 / 2.0);
	strbuf_addf(&sb, "<text id=\"unzoom\" x=\"%d\" y=\"24\" onclick=\"unzoom()\" "
			 "style=\"opacity:0.0\">Reset Zoom</text>\n", SVG_XPAD);
	strbuf_addf(&sb, "<text id=\"search\" x=\"%d\" y=\"24\" onclick=\"search_prompt()\">"
			 "Search</text>\n", width - SVG_XPAD - 100);
	strbuf_addf(&sb, "<text id=\"matched\" x=\"%d\" y=\"%.0f\"> </text>\n",
		    width - SVG_XPAD - 100, height - SVG_YPAD2 / 2.0);

	/* Depth first from the root, with a stack of our own: no recursion. */
	ALLOC_GROW(todo, nr_todo, alloc_todo);
	todo[nr_todo++] = STACK_ROOT;
	while (nr_todo && !ret) {
		stack_id s = todo[--nr_todo];
		uint32_t depth = ps->stacks[s].depth, nk;
		const stack_id *kids = calltree_kids(&t, s, &nk);
		double x = SVG_XPAD + (double)off[s] * per;
		double y = o->icicle ? SVG_YPAD1 + (double)depth * SVG_FRAME_HEIGHT
				     : height - SVG_YPAD2 - (double)(depth + 1) * SVG_FRAME_HEIGHT +
					       SVG_FRAME_PAD;

		int64_t delta = before ? (int64_t)(w[s] - before[s]) : 0;

		if (s == STACK_ROOT) {
			add_box(&sb, l->p, "all", 3, all, all, NULL, x, (double)all * per, y,
				0xc0c0c0, true);
		} else {
			const struct frame *f = &ps->frames[ps->stacks[s].frame];

			add_box(&sb, l->p, ps_get(ps, f->name), intern_len(&ps->strings, f->name),
				t.total[s], all, before ? &delta : NULL, x, (double)t.total[s] * per,
				y, before ? delta_rgb(delta, max_delta)
					  : palette_xterm_rgb(palette_xterm(ps, f, o->color)),
				false);
		}
		res->items++;
		place_kids(ps, &t, moved, s, off, &kids_by_name, &alloc_kids);
		for (uint32_t i = nk; i-- > 0;) {
			if (!t.total[kids[i]])
				continue;
			if ((double)t.total[kids[i]] < min_weight) {
				res->omitted++;
				continue;
			}
			ALLOC_GROW(todo, nr_todo, alloc_todo);
			todo[nr_todo++] = kids[i];
		}
		if (sb.len >= FLUSH_AT)
			ret = write_buf(out, &sb, err);
	}
	strbuf_addstr(&sb, "</svg>\n");
	if (!ret)
		ret = write_buf(out, &sb, err);
	free(todo);
	free(off);
	free(moved);
	free(kids_by_name);
	free(w);
	free(before);
	calltree_release(&t);
	strbuf_release(&sb);
	return ret;
}

int
export_write(const struct export_lens *l, enum export_format f,
	     const struct export_svg_options *svg, FILE *out, struct export_result *res,
	     struct tf_error *err)
{
	static const struct export_svg_options svg_default = EXPORT_SVG_OPTIONS_INIT;
	struct export_result dummy;
	bool *in = zoom_mask(l);
	int ret = -1;

	if (!res)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	switch (f) {
	case EXPORT_FOLDED:
		ret = write_folded(l, in, out, res, err);
		break;
	case EXPORT_SPEEDSCOPE:
		ret = write_speedscope(l, in, out, res, err);
		break;
	case EXPORT_SVG:
		ret = write_svg(l, in, svg ? svg : &svg_default, out, res, err);
		break;
	case EXPORT_NR_FORMATS:
		BUG("export to no format");
	}
	free(in);
	if (!ret && fflush(out))
		ret = tf_error_set(err, "cannot write output: %s", strerror(errno));
	return ret;
}
