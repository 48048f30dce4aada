#include "config.h"

#include "tflame/import.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/input.h"
#include "tflame/lines.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

/*
 * Instruments "Deep Copy": the call tree of a Time Profiler, Counters or
 * Allocations run as tab-separated text, a header line, then one row per
 * tree node in pre-order, its depth told by the spaces before the symbol:
 *
 *	Weight<TAB>Self Weight<TAB><TAB>Symbol Name
 *	4.93 s  100.0%<TAB>0 s<TAB> <TAB>start
 *	2.45 s   49.7%<TAB>846.00 ms<TAB> <TAB> delta()
 *
 * Instruments 7 calls the weight "Running Time" ("4273.0ms   99.9%"),
 * Allocations "Bytes Used" (" 429.93 MB  100.0%", with a "Count" column),
 * Counters weighs cycles ("96.08 Gc"); Instruments 16 names the symbol
 * column "Symbol Names", drops the empty column and starts the first row
 * some spaces in. Depths are counted from the first row's indent.
 *
 * A row's weight is its node's total. As speedscope reads the file, a
 * node's total is its own weight or the sum of its children's totals,
 * whichever is larger (the printed figures are rounded), and its self
 * weight is the rest; the file's own self column is not read. Each node
 * becomes one sample of its self weight, emitted when the node ends, so
 * children come before their parent's own time in Time Order, as in
 * speedscope's flame chart.
 */

#define INSTRUMENTS_FORMAT "Instruments deep copy"
/* Decimals of a figure beyond this make it unreadable. */
#define MAX_DECIMALS 9

/* For figure * unit multiplier before the decimals are divided out. */
__extension__ typedef unsigned __int128 u128;

enum column_kind {
	COL_OTHER,
	COL_WEIGHT,  /* Weight, Running Time, Bytes Used */
	COL_COUNT,   /* Allocations' Count */
	COL_SYMBOL,  /* Symbol Name(s) */
	COL_PATH,    /* Source Path */
};

/* What a figure's unit word is, and what it multiplies. */
struct unit {
	const char *word;
	enum weight_unit unit;
	uint64_t mul;
};

static const struct unit units[] = {
	{ "ns", UNIT_NANOSECONDS, 1 },
	{ "us", UNIT_NANOSECONDS, 1000 },
	{ "\xc2\xb5s", UNIT_NANOSECONDS, 1000 },
	{ "ms", UNIT_NANOSECONDS, 1000000 },
	{ "s", UNIT_NANOSECONDS, 1000000000 },
	{ "min", UNIT_NANOSECONDS, 60000000000 },
	{ "cycles", UNIT_EVENTS, 1 },
	{ "Kc", UNIT_EVENTS, 1000 },
	{ "Mc", UNIT_EVENTS, 1000000 },
	{ "Gc", UNIT_EVENTS, 1000000000 },
	{ "Tc", UNIT_EVENTS, 1000000000000 },
	{ "Bytes", UNIT_BYTES, 1 },
	{ "KB", UNIT_BYTES, 1024 },
	{ "MB", UNIT_BYTES, 1024 * 1024 },
	{ "GB", UNIT_BYTES, 1024 * 1024 * 1024 },
	{ "TB", UNIT_BYTES, (uint64_t)1024 * 1024 * 1024 * 1024 },
};

/* An open node of the tree: the rows on the path to the current one. */
struct open_node {
	uint64_t weight; /* the row's own figure */
	uint64_t kids;   /* the totals of its children so far */
	uint64_t count;  /* the Count column (Allocations) */
	uint64_t kid_counts;
};

struct instruments {
	struct profile_set *ps;
	struct builder b;
	thread_id thread;
	struct profile *prof, *count_prof;

	struct strbuf head; /* the header line */
	bool head_read;
	int ncols;  /* fields to split a row into: up to the last read */
	int weight_col, count_col, symbol_col, path_col;
	bool have_unit;  /* a readable figure fixed the profile's unit */
	size_t base_indent;

	struct name_frames by_name; /* frames with no source path */
	frame_id *frames; /* the path, root first */
	struct open_node *nodes;
	size_t depth, alloc_frames, alloc_nodes;

	uint64_t bad, first_bad;
};

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Read a figure such as "4.93 s  100.0%", "4273.0ms", " 429.93 MB" or
 * "84671": a decimal number, an optional unit word, anything after. Sets
 * *value (rounded to the unit's integer: ns, cycles, bytes) and *u (NULL
 * for a plain number). Returns NULL or why it is not a figure.
 */
static const char *
parse_figure(const char *s, size_t len, uint64_t *value, const struct unit **u)
{
	size_t i = 0, w;
	uint64_t ip = 0, frac = 0, pow10 = 1, mul = 1;
	u128 num;

	*u = NULL;
	while (i < len && is_blank(s[i]))
		i++;
	if (i == len || s[i] < '0' || s[i] > '9')
		return "no number";
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (ip > (UINT64_MAX - 9) / 10)
			return "number too large";
		ip = ip * 10 + (uint64_t)(s[i] - '0');
		/* A thousands separator, as some locales print "1,234.50 ms". */
		if (i + 2 < len && s[i + 1] == ',' && s[i + 2] >= '0' && s[i + 2] <= '9')
			i++;
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			if (pow10 >= 1000000000)
				return "too many decimals";
			frac = frac * 10 + (uint64_t)(s[i] - '0');
			pow10 *= 10;
		}
	}
	if (i < len && s[i] == ' ')
		i++;
	for (w = i; w < len && !is_blank(s[w]) && s[w] != '%'; w++)
		;
	if (w > i) {
		/* Units are short: no memcmp() call per row for them. */
		for (size_t k = 0; k < ARRAY_SIZE(units) && !*u; k++) {
			const char *word = units[k].word;
			size_t n = 0;

			/* The input may hold a NUL: the word's own ends the match. */
			while (i + n < w && word[n] && word[n] == s[i + n])
				n++;
			if (i + n == w && !word[n])
				*u = &units[k];
		}
		if (!*u)
			return "unknown unit";
		mul = (*u)->mul;
	}
	/* (ip + frac / pow10) * mul, rounded half up, exactly. */
	num = ((u128)ip * pow10 + frac) * mul + pow10 / 2;
	num /= pow10;
	if (num > UINT64_MAX)
		return "number too large";
	*value = (uint64_t)num;
	return NULL;
}

/* The n-th tab-separated field of line, or false if there are fewer. */
static bool
field(const char *line, size_t len, int n, const char **f, size_t *flen)
{
	const char *p = line, *end = line + len, *tab;

	for (int i = 0; i < n; i++) {
		tab = memchr(p, '\t', (size_t)(end - p));

		if (!tab)
			return false;
		p = tab + 1;
	}
	*f = p;
	tab = memchr(p, '\t', (size_t)(end - p));
	*flen = (size_t)((tab ? tab : end) - p);
	return true;
}

/* The columns tflame reads must be among a row's first MAX_COLS. */
#define MAX_COLS 64

/* A field of a row. */
struct span {
	const char *p;
	size_t len;
};

/*
 * Split line at tabs into its first max fields (max <= MAX_COLS), in one
 * pass; returns how many there are.
 */
static int
split_row(const char *line, size_t len, struct span *out, int max)
{
	const char *p = line, *end = line + len;
	int n = 0;

	while (n < max) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));

		out[n].p = p;
		out[n].len = (size_t)((tab ? tab : end) - p);
		n++;
		if (!tab)
			break;
		p = tab + 1;
	}
	return n;
}

static enum column_kind
column_kind(const char *s, size_t len)
{
	static const struct {
		const char *name;
		enum column_kind kind;
	} names[] = {
		{ "Weight", COL_WEIGHT },
		{ "Running Time", COL_WEIGHT },
		{ "Bytes Used", COL_WEIGHT },
		{ "Count", COL_COUNT },
		{ "Symbol Name", COL_SYMBOL },
		{ "Symbol Names", COL_SYMBOL },
		{ "Source Path", COL_PATH },
	};

	while (len && is_blank(s[len - 1]))
		len--;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strlen(names[i].name) == len && !memcmp(s, names[i].name, len))
			return names[i].kind;
	return COL_OTHER;
}

static int
header(struct instruments *ins, const char *line, size_t len, struct tf_error *err)
{
	const char *f;
	size_t flen;

	ins->weight_col = ins->count_col = ins->symbol_col = ins->path_col = -1;
	for (int i = 0; field(line, len, i, &f, &flen); i++) {
		int *col = NULL;

		switch (column_kind(f, flen)) {
		case COL_WEIGHT:
			col = &ins->weight_col;
			break;
		case COL_COUNT:
			col = &ins->count_col;
			break;
		case COL_SYMBOL:
			col = &ins->symbol_col;
			break;
		case COL_PATH:
			col = &ins->path_col;
			break;
		case COL_OTHER:
			break;
		}
		if (col && *col < 0) {
			*col = i;
			ins->ncols = i + 1;
		}
	}
	if (ins->ncols > MAX_COLS)
		return tf_error_set_at(err, NULL, 1, "a column tflame reads comes after the "
				       "first %d", MAX_COLS);
	if (ins->symbol_col < 0)
		return tf_error_set_at(err, NULL, 1, "no \"Symbol Name\" column in the header");
	if (ins->weight_col < 0)
		return tf_error_set_at(err, NULL, 1, "no weight column (Weight, Running Time "
					     "or Bytes Used) in the header");
	return 0;
}

static int
add_sample(struct instruments *ins, struct profile *p, uint64_t w, struct tf_error *err)
{
	if (!w)
		return 0;
	builder_begin_sample(&ins->b, p, ins->thread, w, 0, false);
	for (size_t i = 0; i < ins->depth; i++)
		builder_push_frame(&ins->b, ins->frames[i]);
	return builder_end_sample(&ins->b, BUILDER_ROOT_FIRST, err);
}

/*
 * Close the deepest open node: emit its self weight, and add its total
 * to its parent's children.
 */
static int
close_node(struct instruments *ins, struct tf_error *err)
{
	struct open_node *n = &ins->nodes[ins->depth - 1];
	uint64_t total = n->weight > n->kids ? n->weight : n->kids;
	uint64_t count = n->count > n->kid_counts ? n->count : n->kid_counts;

	if (add_sample(ins, ins->prof, total - n->kids, err))
		return -1;
	if (ins->count_prof && add_sample(ins, ins->count_prof, count - n->kid_counts, err))
		return -1;
	ins->depth--;
	if (ins->depth) {
		struct open_node *parent = &ins->nodes[ins->depth - 1];

		/* The profile's total would overflow first: the builder says so. */
		parent->kids = total > UINT64_MAX - parent->kids ? UINT64_MAX : parent->kids + total;
		parent->kid_counts = count > UINT64_MAX - parent->kid_counts
					     ? UINT64_MAX : parent->kid_counts + count;
	}
	return 0;
}

static void
bad_row(struct instruments *ins, uint64_t lineno)
{
	if (!ins->bad++)
		ins->first_bad = lineno;
}

static struct profile *
make_profile(struct instruments *ins, const char *line, size_t len, int col,
	     enum weight_unit unit)
{
	const char *f;
	size_t flen;
	struct profile *p;

	field(line, len, col, &f, &flen);
	p = profile_set_profile(ins->ps, ps_str(ins->ps, f, flen), unit);
	/* One sample per row of the call tree. */
	p->no_samples = true;
	return p;
}

static int
row(struct instruments *ins, const char *line, size_t len, const char *header_line,
    size_t header_len, uint64_t lineno, struct tf_error *err)
{
	struct span cols[MAX_COLS];
	int ncols = split_row(line, len, cols, ins->ncols);
	const char *sym, *f;
	size_t slen, flen, indent = 0, depth;
	uint64_t weight = 0, count = 0;
	const struct unit *u;
	str_id name;

	/* speedscope skips a row with no symbol: blank lines, the end. */
	if (ins->symbol_col >= ncols)
		return 0;
	sym = cols[ins->symbol_col].p;
	slen = cols[ins->symbol_col].len;
	while (indent < slen && sym[indent] == ' ')
		indent++;
	while (slen > indent && is_blank(sym[slen - 1]))
		slen--;
	if (slen == indent)
		return 0;

	if (!ins->prof) {
		ins->prof = make_profile(ins, header_line, header_len, ins->weight_col, UNIT_NONE);
		if (ins->count_col >= 0)
			ins->count_prof = make_profile(ins, header_line, header_len,
						       ins->count_col, UNIT_OBJECTS);
		ins->base_indent = indent;
	}
	f = ins->weight_col < ncols ? cols[ins->weight_col].p : "";
	flen = ins->weight_col < ncols ? cols[ins->weight_col].len : 0;
	if (parse_figure(f, flen, &weight, &u)) {
		/* speedscope weighs such a row 0. */
		bad_row(ins, lineno);
		weight = 0;
	} else if (!ins->have_unit) {
		/* The first readable figure says what they all count. */
		ins->prof->unit = u ? u->unit : UNIT_NONE;
		ins->have_unit = true;
	} else if ((u ? u->unit : UNIT_NONE) != ins->prof->unit) {
		return tf_error_set_at(err, NULL, lineno, "weight \"%.*s\" is %s%s where the rows "
				       "before are %s%s", (int)flen, f, u ? "in " : "a plain count",
				       u ? weight_unit_name(u->unit) : "",
				       ins->prof->unit ? "in " : "plain counts",
				       ins->prof->unit ? weight_unit_name(ins->prof->unit) : "");
	}
	if (ins->count_prof && ins->count_col < ncols &&
	    parse_figure(cols[ins->count_col].p, cols[ins->count_col].len, &count, &u))
		bad_row(ins, lineno);

	if (indent < ins->base_indent)
		return tf_error_set_at(err, NULL, lineno, "symbol indented %zu spaces, less "
				       "than the first row's %zu", indent, ins->base_indent);
	depth = indent - ins->base_indent;
	if (depth > ins->depth)
		return tf_error_set_at(err, NULL, lineno, "symbol at depth %zu under a row "
				       "at depth %zu: a level is missing", depth,
				       ins->depth ? ins->depth - 1 : 0);
	while (ins->depth > depth)
		if (close_node(ins, err))
			goto fail;

	ALLOC_GROW(ins->frames, ins->depth + 1, ins->alloc_frames);
	ALLOC_GROW(ins->nodes, ins->depth + 1, ins->alloc_nodes);
	name = ps_str(ins->ps, sym + indent, slen - indent);
	if (ins->path_col >= 0 && ins->path_col < ncols) {
		struct frame fr;

		f = cols[ins->path_col].p;
		flen = cols[ins->path_col].len;
		while (flen && is_blank(*f)) {
			f++;
			flen--;
		}
		while (flen && is_blank(f[flen - 1]))
			flen--;
		memset(&fr, 0, sizeof(fr));
		fr.name = name;
		fr.module = STR_EMPTY;
		fr.file = ps_str(ins->ps, f, flen);
		ins->frames[ins->depth] = profile_set_frame(ins->ps, &fr);
	} else {
		ins->frames[ins->depth] = name_frames_get(&ins->by_name, ins->ps, name, STR_EMPTY);
	}
	ins->nodes[ins->depth] = (struct open_node){ .weight = weight, .count = count };
	ins->depth++;
	return 0;

fail:
	err->line = lineno;
	return -1;
}

/* The line_fn: the header first, then the rows. */
static int
instruments_line(void *ctx, const char *line, size_t len, uint64_t lineno, struct tf_error *err)
{
	struct instruments *ins = ctx;

	if (ins->head_read)
		return row(ins, line, len, ins->head.buf, ins->head.len, lineno, err);
	ins->head_read = true;
	if (text_starts(line, len, "\xef\xbb\xbf")) {
		line += 3;
		len -= 3;
	}
	strbuf_add(&ins->head, line, len);
	return header(ins, ins->head.buf, ins->head.len, err);
}

int
instruments_parse_lines(struct line_reader *lr, const struct import_options *opts,
			struct profile_set *ps, struct tf_error *err)
{
	static const struct import_options defaults;
	struct instruments ins;
	int ret = -1;

	if (!opts)
		opts = &defaults;
	memset(&ins, 0, sizeof(ins));
	ins.ps = ps;
	strbuf_init(&ins.head, 0);
	builder_init(&ins.b, ps);
	ins.b.max_samples = opts->max_samples;
	ins.thread = profile_set_thread(ps, -1, -1, STR_EMPTY);
	ps->format = INSTRUMENTS_FORMAT;

	if (line_reader_each(lr, opts->progress, &ins.b, instruments_line, &ins, err))
		goto out;
	if (!ins.head_read) {
		tf_error_set(err, "empty input: no Instruments header");
		goto out;
	}
	while (ins.depth)
		if (close_node(&ins, err))
			goto out;
	if (!ins.prof) {
		tf_error_set(err, "no rows under the Instruments header");
		goto out;
	}
	if (ins.bad)
		profile_set_warn(ps, ins.first_bad, "%" PRIu64 " row%s with no readable weight, "
				 "weighed 0", ins.bad, ins.bad == 1 ? "" : "s");
	ret = 0;
out:
	builder_release(&ins.b);
	strbuf_release(&ins.head);
	name_frames_release(&ins.by_name);
	free(ins.frames);
	free(ins.nodes);
	return ret;
}

static int
instruments_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
		 struct tf_error *err)
{
	return line_reader_load(in, instruments_parse_lines, opts, ps, err);
}

/*
 * The header line names the columns: sure with a symbol column and a
 * weight column, unsure (so that the load explains what is missing) with
 * a symbol column alone.
 */
static int
instruments_probe(const char *data, size_t len)
{
	const char *nl, *f;
	size_t flen;
	bool symbol = false, weight = false;

	if (text_starts(data, len, "\xef\xbb\xbf")) {
		data += 3;
		len -= 3;
	}
	nl = memchr(data, '\n', len);
	if (!nl || memchr(data, '\0', len))
		return 0;
	len = (size_t)(nl - data);
	if (len && data[len - 1] == '\r')
		len--;
	for (int i = 0; field(data, len, i, &f, &flen); i++) {
		enum column_kind k = column_kind(f, flen);

		symbol |= k == COL_SYMBOL && i > 0;
		weight |= k == COL_WEIGHT;
	}
	if (symbol && weight)
		return 90;
	return symbol ? 30 : 0;
}

const struct importer importer_instruments = {
	.name = "instruments",
	.description = INSTRUMENTS_FORMAT,
	.probe = instruments_probe,
	.load = instruments_load,
};
