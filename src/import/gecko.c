#include "config.h"

#include "tflame/import.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/input.h"
#include "tflame/json_reader.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * Gecko profiles: what Firefox's profiler, samply, `perf script report
 * gecko` and Python's sampling profiler write, in three forms.
 *
 *  - Raw ("Gecko profile format"): {"meta": {startTime, categories, ...},
 *    "threads": [...], "processes": [<a profile of the same form>, ...]}.
 *    A thread's tables are {"schema": {"stack": 0, "time": 1}, "data":
 *    [[row], ...]}: samples (stack, time in ms after the profile's
 *    startTime), stackTable (prefix, frame), frameTable (location,
 *    line, category...), and its own stringTable. A frame's location is
 *    its whole name: "alpha (http://x/a.js:1:14)" for JS, "leaf (in
 *    libfoo.so)" for perf's and samply's native frames, a label
 *    ("js::RunScript") otherwise.
 *  - Processed (the Firefox Profiler's own): the same tables as one array
 *    per column ({"stack": [...], "time": [...], "length": N}), frames
 *    naming functions (funcTable: name, fileName, resource), strings in
 *    the thread's stringArray or in "shared": {"stringArray": [...]}.
 *  - Firefox DevTools recordings (Firefox 59 to 63, "Recorded Performance
 *    Data"): a raw profile under "profile", beside markers, allocations
 *    and so on. The only form speedscope reads.
 *
 * Every thread of every process is kept, as a thread of its own. A
 * frame's module is its library when the profile names one ("(in lib)",
 * a resource of the processed form), else its category ("JavaScript",
 * "Layout", perf's "Kernel"), a frame with none taking its caller's, as
 * the Firefox Profiler colours them.
 *
 * Weights: a sample of a raw or processed profile counts 1, or its
 * "weight" in the profile's weightType ("samples", "tracing-ms",
 * "bytes"): what the Firefox Profiler counts; a sample with no stack
 * counts nowhere. A thread's nativeAllocations and jsAllocations are
 * profiles of their own, in bytes. A DevTools recording is weighed as
 * speedscope weighs it: a sample lasts until the next sample of its
 * thread, and the last one not at all. Frames speedscope hides there
 * (native labels, Firefox's own resource: and self-hosted JS) are kept:
 * the totals of page JS functions are speedscope's, and so is the self of
 * those that call none of the hidden frames. Gecko's "(root)" above every
 * stack is left out.
 *
 * The tables of a thread come in any order (Gecko writes the samples
 * before the stacks and strings), so each is kept as integers until the
 * thread's object ends, then replayed into the builder and freed; a
 * thread whose profile's meta or shared strings come later waits for them
 * until the end of the document.
 */

#define GECKO_FORMAT "Gecko profile"
/* A cell that was null or absent. */
#define GK_NULL INT64_MIN
/* Times and "tracing-ms" weights are read in ms and kept in ns. */
#define MS_SHIFT 6

/* The columns a thread's tables are read into. */
enum gk_col {
	/* samples */
	C_S_STACK, C_S_TIME, C_S_DELTA, C_S_WEIGHT,
	/* stackTable */
	C_ST_PREFIX, C_ST_FRAME, C_ST_CAT,
	/* frameTable */
	C_F_LOC, C_F_FUNC, C_F_LINE, C_F_CAT,
	/* funcTable */
	C_FN_NAME, C_FN_FILE, C_FN_LINE, C_FN_RES,
	/* resourceTable */
	C_R_NAME,
	/* nativeAllocations, jsAllocations */
	C_NA_STACK, C_NA_TIME, C_NA_WEIGHT,
	C_JA_STACK, C_JA_TIME, C_JA_WEIGHT,
	NR_COLS
};

enum gk_table {
	T_SAMPLES, T_STACKS, T_FRAMES, T_FUNCS, T_RESOURCES, T_NATIVE, T_JS, NR_TABLES
};

static const struct {
	enum gk_table table;
	const char *name;    /* the column's name in schema or processed form */
	int shift;           /* read scaled by 10^shift (times, weights) */
} columns[NR_COLS] = {
	[C_S_STACK] = { T_SAMPLES, "stack", 0 },
	[C_S_TIME] = { T_SAMPLES, "time", MS_SHIFT },
	[C_S_DELTA] = { T_SAMPLES, "timeDeltas", MS_SHIFT },
	[C_S_WEIGHT] = { T_SAMPLES, "weight", MS_SHIFT },
	[C_ST_PREFIX] = { T_STACKS, "prefix", 0 },
	[C_ST_FRAME] = { T_STACKS, "frame", 0 },
	[C_ST_CAT] = { T_STACKS, "category", 0 },
	[C_F_LOC] = { T_FRAMES, "location", 0 },
	[C_F_FUNC] = { T_FRAMES, "func", 0 },
	[C_F_LINE] = { T_FRAMES, "line", 0 },
	[C_F_CAT] = { T_FRAMES, "category", 0 },
	[C_FN_NAME] = { T_FUNCS, "name", 0 },
	[C_FN_FILE] = { T_FUNCS, "fileName", 0 },
	[C_FN_LINE] = { T_FUNCS, "lineNumber", 0 },
	[C_FN_RES] = { T_FUNCS, "resource", 0 },
	[C_R_NAME] = { T_RESOURCES, "name", 0 },
	[C_NA_STACK] = { T_NATIVE, "stack", 0 },
	[C_NA_TIME] = { T_NATIVE, "time", MS_SHIFT },
	[C_NA_WEIGHT] = { T_NATIVE, "weight", 0 },
	[C_JA_STACK] = { T_JS, "stack", 0 },
	[C_JA_TIME] = { T_JS, "time", MS_SHIFT },
	[C_JA_WEIGHT] = { T_JS, "weight", 0 },
};

static const char *const table_names[NR_TABLES] = {
	"samples", "stackTable", "frameTable", "funcTable", "resourceTable",
	"nativeAllocations", "jsAllocations",
};

/*
 * A column's cells: times and weights as int64 (v), indices, lines and
 * categories as int32 (n), which is most of what a thread holds while it
 * waits for the end of the document.
 */
struct gk_column {
	int64_t *v;
	int32_t *n;
	size_t nr, alloc;
};

/* A narrow (int32) column's null. */
#define N32_NULL INT32_MIN

enum gk_weight_type { W_SAMPLES, W_MS, W_BYTES };

struct gk_thread {
	uint32_t ctx;           /* the profile (process) it belongs to */
	uint64_t line;          /* where its object starts, for messages */
	char *name;
	int64_t pid, tid;
	enum gk_weight_type wtype;
	struct gk_column col[NR_COLS];
	size_t rows[NR_TABLES]; /* rows read of each table */
	str_id *strings;        /* its own string table, if it has one */
	size_t nr_strings, alloc_strings;
	bool has_strings;
};

/* A profile object: the document's, or a process of it. */
struct gk_ctx {
	uint32_t parent;        /* UINT32_MAX for the document's */
	int64_t start;          /* meta.startTime, ns */
	bool has_start, meta_done;
	str_id *cats;           /* meta.categories[].name */
	size_t nr_cats, alloc_cats;
	str_id *shared;         /* shared.stringArray */
	size_t nr_shared, alloc_shared;
	bool has_shared;
	bool process;           /* an element of its parent's "processes" */
};

struct gecko {
	struct json_reader *jr;
	struct profile_set *ps;
	const struct import_options *opts;
	struct builder b;
	struct tf_error *err;
	bool devtools;          /* a DevTools recording: speedscope's weights */

	struct gk_ctx *ctxs;
	size_t nr_ctxs, alloc_ctxs;
	struct gk_thread *waiting; /* threads built at the end */
	size_t nr_waiting, alloc_waiting;
	uint64_t string_threads; /* threads and processes given as JSON text, skipped */
	uint64_t string_line;

	/* Per build: scratch by stack and frame index. */
	frame_id *stack_frame;
	stack_id *stack_sid;    /* STACK_ROOT for Gecko's (root) alone */
	int64_t *stack_cat;
	size_t alloc_stack;
	frame_id *frame_cache;
	int64_t *frame_cache_cat;
	size_t alloc_frame;

	str_id root_name;       /* "(root)" */
	uint64_t reported;
};

/* The categories of Gecko before meta.categories (version 12): bit flags. */
static const struct {
	int64_t flag;
	const char *name;
} old_categories[] = {
	{ 16, "Other" }, { 32, "Layout" }, { 64, "JavaScript" }, { 128, "GC & CC" },
	{ 256, "GC & CC" }, { 512, "Network" }, { 1024, "Graphics" }, { 2048, "Other" },
	{ 4096, "DOM" },
};

/* ---------------------------------------------------------------- reading */

/*
 * A category's name as a module: modules are paths to tflame, shown by
 * their last part, so the Firefox Profiler's "GC / CC" becomes "GC & CC".
 */
static str_id
category_str(struct profile_set *ps, const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	str_id id;

	if (!memchr(s, '/', len))
		return ps_str(ps, s, len);
	for (size_t i = 0; i < len; i++)
		strbuf_addch(&sb, s[i] == '/' ? '&' : s[i]);
	id = ps_str(ps, sb.buf, sb.len);
	strbuf_release(&sb);
	return id;
}

JSON_READER_SHORTHANDS(struct gecko)

static int
progress(struct gecko *g)
{
	return json_reader_progress(g->jr, g->opts->progress, &g->reported, g->err);
}

/* Whether the text of the last token is key. */
static bool
is(struct gecko *g, const char *key)
{
	return !strcmp(json_reader_text(g->jr), key);
}

/*
 * A cell: a number (scaled by 10^shift), null, or a boolean. Anything
 * else is an error naming what.
 */
static int
read_cell(struct gecko *g, enum json_token tok, int shift, const char *what, int64_t *v)
{
	char msg[96];

	switch (tok) {
	case JSON_NUMBER:
		if (json_parse_scaled(json_reader_text(g->jr), json_reader_len(g->jr), shift, v) &&
		    *v != GK_NULL)
			return 0;
		snprintf(msg, sizeof(msg), "%s is out of range", what);
		return bad(g, msg);
	case JSON_NULL:
		*v = GK_NULL;
		return 0;
	case JSON_TRUE:
	case JSON_FALSE:
		*v = tok == JSON_TRUE;
		return 0;
	default:
		if (tok <= JSON_TRUNCATED)
			return json_fail(g, tok);
		snprintf(msg, sizeof(msg), "%s is not a number", what);
		return bad(g, msg);
	}
}

/* Whether column c keeps int64 cells: times and weights. */
static inline bool
wide(enum gk_col c)
{
	return columns[c].shift != 0 || c == C_NA_WEIGHT || c == C_JA_WEIGHT;
}

/* Append v (GK_NULL, or in int32's range for a narrow column) to column c. */
static void
col_push(struct gk_thread *t, enum gk_col c, int64_t v)
{
	struct gk_column *col = &t->col[c];

	if (wide(c)) {
		ALLOC_GROW(col->v, col->nr, col->alloc);
		col->v[col->nr++] = v;
	} else {
		ALLOC_GROW(col->n, col->nr, col->alloc);
		col->n[col->nr++] = v == GK_NULL ? N32_NULL : (int32_t)v;
	}
}

/* The cell of column c in row i, GK_NULL when the column is short. */
static int64_t
cell(const struct gk_thread *t, enum gk_col c, size_t i)
{
	const struct gk_column *col = &t->col[c];

	if (i >= col->nr)
		return GK_NULL;
	if (wide(c))
		return col->v[i];
	return col->n[i] == N32_NULL ? GK_NULL : col->n[i];
}

/* A cell read for column c, checked to fit it. */
static int
read_col_cell(struct gecko *g, enum json_token tok, enum gk_col c, int64_t *v)
{
	char msg[96];

	if (read_cell(g, tok, columns[c].shift, columns[c].name, v))
		return -1;
	if (wide(c) || *v == GK_NULL || (*v > N32_NULL && *v <= INT32_MAX))
		return 0;
	snprintf(msg, sizeof(msg), "%s is out of range", columns[c].name);
	return bad(g, msg);
}

/* The column of table called name, or -1. */
static int
find_col(enum gk_table table, const char *name)
{
	/* An allocation's bytes: "size" in some versions, "weight" in others. */
	if ((table == T_NATIVE || table == T_JS) && !strcmp(name, "size"))
		name = "weight";
	for (int c = 0; c < NR_COLS; c++)
		if (columns[c].table == table && !strcmp(columns[c].name, name))
			return c;
	return -1;
}

/* An array of strings (or nulls), the array begun, interned into *out. */
static int
read_strings(struct gecko *g, str_id **out, size_t *nr, size_t *alloc)
{
	enum json_token tok;

	while ((tok = next(g)) == JSON_STRING || tok == JSON_NULL) {
		ALLOC_GROW(*out, *nr, *alloc);
		(*out)[(*nr)++] = tok == JSON_NULL ? STR_EMPTY
			: ps_str(g->ps, json_reader_text(g->jr), json_reader_len(g->jr));
		if (!(*nr & 0xffff) && progress(g))
			return -1;
	}
	if (tok == JSON_ARRAY_END)
		return 0;
	return tok <= JSON_TRUNCATED ? json_fail(g, tok) : bad(g, "a string table holds a non-string");
}

/* A column of the processed form: an array of cells, the array begun. */
static int
read_column(struct gecko *g, struct gk_thread *t, enum gk_col c)
{
	enum json_token tok;
	int64_t v;

	while ((tok = next(g)) != JSON_ARRAY_END) {
		if (read_col_cell(g, tok, c, &v))
			return -1;
		col_push(t, c, v);
		if (!(t->col[c].nr & 0xffff) && progress(g))
			return -1;
	}
	return 0;
}

/*
 * The rows of a raw table ("data": [[...], ...]), the array begun: map[k]
 * is the column of cell k, or -1 for one not kept. A short row leaves its
 * last columns null.
 */
static int
read_rows(struct gecko *g, struct gk_thread *t, enum gk_table table, const int *map, size_t nr_map)
{
	enum json_token tok;

	while ((tok = next(g)) == JSON_ARRAY_BEGIN) {
		size_t k = 0;
		int64_t v;

		while ((tok = next(g)) != JSON_ARRAY_END) {
			int c = k < nr_map ? map[k] : -1;

			if (c < 0) {
				if (skip(g, tok))
					return -1;
			} else if (read_col_cell(g, tok, (enum gk_col)c, &v)) {
				return -1;
			} else {
				/* Pad a column left short by an earlier row. */
				while (t->col[c].nr < t->rows[table])
					col_push(t, (enum gk_col)c, GK_NULL);
				col_push(t, (enum gk_col)c, v);
			}
			k++;
		}
		t->rows[table]++;
		if (!(t->rows[table] & 0xffff) && progress(g))
			return -1;
	}
	if (tok == JSON_ARRAY_END)
		return 0;
	return tok <= JSON_TRUNCATED ? json_fail(g, tok) : bad(g, "a table row is not an array");
}

/*
 * A table, its object begun: raw ({"schema": {...}, "data": [...]}) or
 * processed (one array per column).
 */
static int
read_table(struct gecko *g, struct gk_thread *t, enum gk_table table)
{
	int map[32];
	size_t nr_map = 0;
	bool schema = false;
	enum json_token tok;

	while ((tok = next(g)) == JSON_KEY) {
		if (is(g, "schema")) {
			if ((tok = next(g)) != JSON_OBJECT_BEGIN)
				return tok <= JSON_TRUNCATED ? json_fail(g, tok)
							     : bad(g, "a table's schema is not an object");
			for (size_t k = 0; k < 32; k++)
				map[k] = -1;
			while ((tok = next(g)) == JSON_KEY) {
				int c = find_col(table, json_reader_text(g->jr));
				int64_t idx;

				tok = next(g);
				if (tok != JSON_NUMBER ||
				    !json_parse_int(json_reader_text(g->jr), json_reader_len(g->jr), &idx) ||
				    idx < 0)
					return tok <= JSON_TRUNCATED ? json_fail(g, tok)
						: bad(g, "a schema gives a column no index");
				if (c >= 0 && idx < 32) {
					map[idx] = c;
					if ((size_t)idx + 1 > nr_map)
						nr_map = (size_t)idx + 1;
				}
			}
			if (tok != JSON_OBJECT_END)
				return json_fail(g, tok);
			schema = true;
		} else if (is(g, "data")) {
			if ((tok = next(g)) != JSON_ARRAY_BEGIN)
				return tok <= JSON_TRUNCATED ? json_fail(g, tok)
							     : bad(g, "a table's data is not an array");
			if (!schema)
				return bad(g, "a table's data comes before its schema");
			if (read_rows(g, t, table, map, nr_map))
				return -1;
		} else if (table == T_SAMPLES && is(g, "weightType")) {
			if ((tok = next(g)) == JSON_STRING)
				t->wtype = is(g, "tracing-ms") ? W_MS
					   : is(g, "bytes") ? W_BYTES : W_SAMPLES;
			else if (skip(g, tok))
				return -1;
		} else {
			int c = find_col(table, json_reader_text(g->jr));

			tok = next(g);
			if (c >= 0 && tok == JSON_ARRAY_BEGIN) {
				if (read_column(g, t, (enum gk_col)c))
					return -1;
			} else if (skip(g, tok)) {
				return -1;
			}
		}
	}
	if (tok != JSON_OBJECT_END)
		return json_fail(g, tok);
	/* The processed form's rows: as many as its longest column. */
	for (int c = 0; c < NR_COLS; c++)
		if (columns[c].table == table && t->col[c].nr > t->rows[table])
			t->rows[table] = t->col[c].nr;
	return 0;
}

static void
thread_release(struct gk_thread *t)
{
	for (int c = 0; c < NR_COLS; c++) {
		free(t->col[c].v);
		free(t->col[c].n);
	}
	free(t->strings);
	free(t->name);
	memset(t, 0, sizeof(*t));
}

/* A pid or tid: a number, or a number as a string (the processed form's pid). */
static void
read_id(struct gecko *g, enum json_token tok, int64_t *v)
{
	if ((tok == JSON_NUMBER || tok == JSON_STRING) &&
	    json_parse_int(json_reader_text(g->jr), json_reader_len(g->jr), v))
		return;
	*v = -1;
}

/* ---------------------------------------------------------------- building */

/* The strings a thread's indices name. */
static const str_id *
thread_strings(struct gecko *g, const struct gk_thread *t, size_t *nr)
{
	for (uint32_t c = t->ctx; !t->has_strings && c != UINT32_MAX; c = g->ctxs[c].parent) {
		if (g->ctxs[c].has_shared) {
			*nr = g->ctxs[c].nr_shared;
			return g->ctxs[c].shared;
		}
	}
	*nr = t->nr_strings;
	return t->strings;
}

/* Whether a thread can be built now: its meta and its strings are known. */
static bool
thread_ready(struct gecko *g, const struct gk_thread *t)
{
	size_t nr;

	for (uint32_t c = t->ctx; c != UINT32_MAX; c = g->ctxs[c].parent)
		if (!g->ctxs[c].meta_done)
			return false;
	return t->has_strings || thread_strings(g, t, &nr) != t->strings;
}

static int
bad_index(struct gecko *g, const struct gk_thread *t, const char *what, size_t row,
	  int64_t v, const char *table, size_t size)
{
	return tf_error_set_at(g->err, NULL, t->line,
			       "thread '%s': %s %zu names %lld, which %s (%zu entries) lacks",
			       t->name ? t->name : "", what, row, (long long)v, table, size);
}

/* The name of category c of the thread's profile, or STR_EMPTY. */
static str_id
category_name(struct gecko *g, const struct gk_thread *t, int64_t c)
{
	for (uint32_t x = t->ctx; x != UINT32_MAX; x = g->ctxs[x].parent) {
		const struct gk_ctx *ctx = &g->ctxs[x];

		if (!ctx->nr_cats)
			continue;
		return c >= 0 && (uint64_t)c < ctx->nr_cats ? ctx->cats[c] : STR_EMPTY;
	}
	for (size_t i = 0; i < sizeof(old_categories) / sizeof(old_categories[0]); i++)
		if (old_categories[i].flag == c)
			return ps_str(g->ps, old_categories[i].name, strlen(old_categories[i].name));
	return STR_EMPTY;
}

/*
 * Whether s[0..len) ends in ":digits" (at most 9); if so *start is where
 * the colon is and *num the number, else both are left alone.
 */
static bool
ends_in_number(const char *s, size_t len, size_t *start, uint32_t *num)
{
	size_t i = len;
	uint64_t v = 0, mul = 1;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9' && len - i < 9) {
		v += (uint64_t)(s[i - 1] - '0') * mul;
		mul *= 10;
		i--;
	}
	if (i == len || i == 0 || s[i - 1] != ':')
		return false;
	*start = i - 1;
	*num = (uint32_t)v;
	return true;
}

/*
 * A raw frame's location into f: "name (in lib)" names a library,
 * "name (file:line:col)" or "name (file:line)" a JS function; anything
 * else is all name. *lib tells whether a library was named.
 */
static void
parse_location(struct gecko *g, const char *s, size_t len, struct frame *f, bool *lib)
{
	const char *open;
	size_t end, colon;
	uint32_t line;

	*lib = false;
	f->name = ps_str(g->ps, s, len);
	if (len < 4 || s[len - 1] != ')')
		return;
	/* The parenthesis that opens the last group, after a space. */
	end = len - 1;
	open = NULL;
	for (size_t i = end; i-- > 1;) {
		if (s[i] == '(' && s[i - 1] == ' ') {
			open = s + i;
			break;
		}
	}
	if (!open)
		return;
	if (end - (size_t)(open - s) > 4 && !memcmp(open + 1, "in ", 3)) {
		f->module = ps_str(g->ps, open + 4, (size_t)(s + end - open - 4));
		f->name = ps_str(g->ps, s, (size_t)(open - s - 1));
		*lib = true;
		return;
	}
	/* file:line or file:line:col */
	if (!ends_in_number(open + 1, (size_t)(s + end - open - 1), &colon, &line))
		return;
	/* Two numbers: the last was the column (which tflame does not keep). */
	ends_in_number(open + 1, colon, &colon, &line);
	if (!colon)
		return;
	f->name = ps_str(g->ps, s, (size_t)(open - s - 1));
	f->file = ps_str(g->ps, open + 1, colon);
	f->line = line;
	f->flags |= FRAME_HAS_LINE;
}

/* The frame of frame-table row fi, in category cat (for its module). */
static int
make_frame(struct gecko *g, const struct gk_thread *t, const str_id *strs, size_t nr_strs,
	   size_t fi, int64_t cat, frame_id *out)
{
	struct frame f;
	bool lib = false;
	int64_t loc = cell(t, C_F_LOC, fi), func = cell(t, C_F_FUNC, fi);
	int64_t line = cell(t, C_F_LINE, fi);

	memset(&f, 0, sizeof(f));
	f.module = STR_EMPTY;
	f.file = STR_EMPTY;
	if (func != GK_NULL) {
		int64_t name, file, res;

		if (func < 0 || (uint64_t)func >= t->rows[T_FUNCS])
			return bad_index(g, t, "frame", fi, func, "funcTable", t->rows[T_FUNCS]);
		name = cell(t, C_FN_NAME, (size_t)func);
		file = cell(t, C_FN_FILE, (size_t)func);
		res = cell(t, C_FN_RES, (size_t)func);
		if (name < 0 || (uint64_t)name >= nr_strs)
			return bad_index(g, t, "function", (size_t)func, name, "the string table",
					 nr_strs);
		f.name = strs[name];
		if (file != GK_NULL && file >= 0 && (uint64_t)file < nr_strs)
			f.file = strs[file];
		if (line == GK_NULL)
			line = cell(t, C_FN_LINE, (size_t)func);
		if (res != GK_NULL && res >= 0) {
			int64_t rn;

			if ((uint64_t)res >= t->rows[T_RESOURCES])
				return bad_index(g, t, "function", (size_t)func, res, "resourceTable",
						 t->rows[T_RESOURCES]);
			rn = cell(t, C_R_NAME, (size_t)res);
			if (rn >= 0 && (uint64_t)rn < nr_strs && strs[rn] != STR_EMPTY) {
				f.module = strs[rn];
				lib = true;
			}
		}
		if (line != GK_NULL && line >= 0 && line <= UINT32_MAX) {
			f.line = (uint32_t)line;
			f.flags |= FRAME_HAS_LINE;
		}
	} else {
		const char *s;

		if (loc < 0 || (uint64_t)loc >= nr_strs)
			return bad_index(g, t, "frame", fi, loc, "the string table", nr_strs);
		s = ps_get(g->ps, strs[loc]);
		parse_location(g, s, strlen(s), &f, &lib);
	}
	if (!lib)
		f.module = category_name(g, t, cat);
	if (f.name == STR_EMPTY)
		f.name = ps_str(g->ps, "(anonymous)", 11);
	{
		const char *m = ps_get(g->ps, f.module);

		if (!strncmp(m, "[kernel", 7) || !strcmp(m, "Kernel"))
			f.flags |= FRAME_KERNEL;
	}
	*out = profile_set_frame(g->ps, &f);
	return 0;
}

/*
 * Every stack's frame, category (its own, its frame's, or its prefix's)
 * and id in the set. Prefixes mostly come first; one that does not is resolved
 * by walking up, which a cycle would never end, so walks are bounded by
 * the number of stacks.
 */
static int
resolve_stacks(struct gecko *g, const struct gk_thread *t, const str_id *strs, size_t nr_strs)
{
	size_t n = t->rows[T_STACKS], nf = t->rows[T_FRAMES];
	size_t *chain = NULL, nr_chain, alloc_chain = 0;
	int ret = -1;

	if (n > g->alloc_stack) {
		g->stack_frame = xrealloc(g->stack_frame, n * sizeof(*g->stack_frame));
		g->stack_sid = xrealloc(g->stack_sid, n * sizeof(*g->stack_sid));
		g->stack_cat = xrealloc(g->stack_cat, n * sizeof(*g->stack_cat));
		g->alloc_stack = n;
	}
	if (nf > g->alloc_frame) {
		g->frame_cache = xrealloc(g->frame_cache, nf * sizeof(*g->frame_cache));
		g->frame_cache_cat = xrealloc(g->frame_cache_cat, nf * sizeof(*g->frame_cache_cat));
		g->alloc_frame = nf;
	}
	for (size_t i = 0; i < n; i++)
		g->stack_frame[i] = FRAME_NONE;
	for (size_t i = 0; i < nf; i++)
		g->frame_cache[i] = FRAME_NONE;

	for (size_t s = 0; s < n; s++) {
		size_t x = s;

		nr_chain = 0;
		/* Up to a resolved stack or the root. */
		while (g->stack_frame[x] == FRAME_NONE) {
			int64_t p = cell(t, C_ST_PREFIX, x);

			if (nr_chain == n) {
				tf_error_set_at(g->err, NULL, t->line,
						"thread '%s': the stack table has a cycle through stack %zu",
						t->name ? t->name : "", x);
				goto out;
			}
			ALLOC_GROW(chain, nr_chain, alloc_chain);
			chain[nr_chain++] = x;
			if (p == GK_NULL)
				break;
			if (p < 0 || (uint64_t)p >= n) {
				bad_index(g, t, "stack", x, p, "the stack table", n);
				goto out;
			}
			x = (size_t)p;
		}
		/* Down again, each stack from its prefix. */
		while (nr_chain) {
			size_t y = chain[--nr_chain];
			int64_t p = cell(t, C_ST_PREFIX, y), fr = cell(t, C_ST_FRAME, y);
			int64_t cat = cell(t, C_ST_CAT, y);

			if (fr < 0 || (uint64_t)fr >= nf) {
				bad_index(g, t, "stack", y, fr, "the frame table", nf);
				goto out;
			}
			if (cat == GK_NULL)
				cat = cell(t, C_F_CAT, (size_t)fr);
			if (cat == GK_NULL)
				cat = p == GK_NULL ? GK_NULL : g->stack_cat[p];
			g->stack_cat[y] = cat;
			if (g->frame_cache[fr] == FRAME_NONE || g->frame_cache_cat[fr] != cat) {
				if (make_frame(g, t, strs, nr_strs, (size_t)fr, cat, &g->frame_cache[fr]))
					goto out;
				g->frame_cache_cat[fr] = cat;
			}
			g->stack_frame[y] = g->frame_cache[fr];
			/* Gecko's (root) is above every stack: left out, as for V8. */
			if (p == GK_NULL && ps_frame(g->ps, g->stack_frame[y])->name == g->root_name)
				g->stack_sid[y] = STACK_ROOT;
			else if (p == GK_NULL)
				g->stack_sid[y] = profile_set_stack(g->ps, STACK_ROOT, g->stack_frame[y]);
			else
				g->stack_sid[y] = profile_set_stack(g->ps, g->stack_sid[p],
								    g->stack_frame[y]);
		}
	}
	ret = 0;
out:
	free(chain);
	return ret;
}

/*
 * a + b, held at int64's ends (short of GK_NULL): a hostile file's times
 * may be anything.
 */
static int64_t
sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (!__builtin_add_overflow(a, b, &r) && r != GK_NULL)
		return r;
	return b < 0 ? GK_NULL + 1 : INT64_MAX;
}

/*
 * The time from the outermost profile's start to the thread's profile's,
 * ns: a process's samples are timed from its own start.
 */
static int64_t
ctx_offset(struct gecko *g, uint32_t ctx)
{
	uint32_t root = UINT32_MAX;
	int64_t d;

	for (uint32_t c = ctx; c != UINT32_MAX; c = g->ctxs[c].parent)
		if (g->ctxs[c].has_start)
			root = c;
	if (root == UINT32_MAX || !g->ctxs[ctx].has_start)
		return 0;
	if (__builtin_sub_overflow(g->ctxs[ctx].start, g->ctxs[root].start, &d))
		return 0;
	return d;
}

static struct profile *
thread_profile(struct gecko *g, const struct gk_thread *t)
{
	struct profile *p;
	bool samples = g->opts->weight == WEIGHT_SAMPLES;

	if (g->devtools && !samples) {
		p = profile_set_profile(g->ps, ps_str(g->ps, "time", 4), UNIT_NANOSECONDS);
		p->spans = true;
		return p;
	}
	if (samples || t->wtype == W_SAMPLES)
		return profile_set_profile(g->ps, ps_str(g->ps, "samples", 7), UNIT_SAMPLES);
	if (t->wtype == W_BYTES)
		return profile_set_profile(g->ps, ps_str(g->ps, "bytes", 5), UNIT_BYTES);
	return profile_set_profile(g->ps, ps_str(g->ps, "time", 4), UNIT_NANOSECONDS);
}

/* The id of stack s (not null) of a thread's table, named by what, row. */
static int
stack_of(struct gecko *g, const struct gk_thread *t, int64_t s, const char *what, size_t row,
	 stack_id *sid)
{
	size_t nst = t->rows[T_STACKS];

	if (s < 0 || (uint64_t)s >= nst)
		return bad_index(g, t, what, row, s, "the stack table", nst);
	*sid = g->stack_sid[s];
	/* (root) alone: it is the stack. */
	if (*sid == STACK_ROOT)
		*sid = profile_set_stack(g->ps, STACK_ROOT, g->stack_frame[s]);
	return 0;
}

/*
 * The allocations of a thread (table T_NATIVE or T_JS): each weighs its
 * bytes in a profile of its own; a native deallocation (negative) is not
 * an allocation and is left out.
 */
static int
build_allocations(struct gecko *g, const struct gk_thread *t, thread_id th, enum gk_table table)
{
	bool native = table == T_NATIVE, samples = g->opts->weight == WEIGHT_SAMPLES;
	enum gk_col cs = native ? C_NA_STACK : C_JA_STACK, ct = native ? C_NA_TIME : C_JA_TIME;
	enum gk_col cw = native ? C_NA_WEIGHT : C_JA_WEIGHT;
	const char *name = native ? "native allocations" : "JS allocations";
	int64_t off = ctx_offset(g, t->ctx);
	struct profile *p = NULL;

	for (size_t i = 0; i < t->rows[table] && !builder_stopped(&g->b); i++) {
		int64_t s = cell(t, cs, i), at = cell(t, ct, i), w = cell(t, cw, i);
		stack_id sid;

		if (s == GK_NULL || w == GK_NULL || w <= 0)
			continue;
		if (stack_of(g, t, s, native ? "native allocation" : "JS allocation", i, &sid))
			return -1;
		if (!p)
			p = profile_set_profile(g->ps, ps_str(g->ps, name, strlen(name)),
						samples ? UNIT_SAMPLES : UNIT_BYTES);
		if (builder_add_stack_sample(&g->b, p, th, samples ? 1 : (uint64_t)w,
					     at == GK_NULL ? 0 : sat_add(at, off), at != GK_NULL, sid,
					     g->err))
			return -1;
	}
	return 0;
}

static int
build_thread(struct gecko *g, struct gk_thread *t)
{
	size_t nr_strs, n = t->rows[T_SAMPLES];
	const str_id *strs = thread_strings(g, t, &nr_strs);
	struct profile *p;
	thread_id th;
	int64_t off = ctx_offset(g, t->ctx), time = 0;
	bool deltas = !t->col[C_S_TIME].nr && t->col[C_S_DELTA].nr;
	bool timed = t->col[C_S_TIME].nr || deltas;

	if (!n && !t->rows[T_NATIVE] && !t->rows[T_JS])
		return 0;
	if (resolve_stacks(g, t, strs, nr_strs))
		return -1;
	th = profile_set_thread(g->ps, t->pid, t->tid,
				t->name ? ps_str(g->ps, t->name, strlen(t->name)) : STR_EMPTY);
	p = n ? thread_profile(g, t) : NULL;
	for (size_t i = 0; i < n && !builder_stopped(&g->b); i++) {
		int64_t s = cell(t, C_S_STACK, i), d;
		int64_t at = deltas ? cell(t, C_S_DELTA, i) : cell(t, C_S_TIME, i);
		bool has_time = timed && at != GK_NULL;
		uint64_t w = 1;
		stack_id sid;

		if (deltas) {
			if (at != GK_NULL)
				time = sat_add(time, at);
			at = time;
		}
		if (has_time)
			at = sat_add(at, off);
		if (g->devtools && g->opts->weight != WEIGHT_SAMPLES) {
			/* speedscope's: until the next sample, the last not at all. */
			int64_t nx = i + 1 < n ? cell(t, C_S_TIME, i + 1) : GK_NULL;

			if (nx != GK_NULL)
				nx = sat_add(nx, off);
			w = nx != GK_NULL && has_time && nx > at ? (uint64_t)nx - (uint64_t)at : 0;
		} else if (g->opts->weight != WEIGHT_SAMPLES &&
			   (d = cell(t, C_S_WEIGHT, i)) != GK_NULL) {
			/* Read in millionths: ns for tracing-ms, else whole units. */
			w = d < 0 ? 0 : t->wtype == W_MS ? (uint64_t)d : (uint64_t)d / 1000000;
		}
		/*
		 * A sample with no stack is in no call tree of the Firefox
		 * Profiler; in a recording it is time with no JS running,
		 * which speedscope counts (at no frame).
		 */
		if (s == GK_NULL && !g->devtools)
			continue;
		sid = STACK_ROOT;
		if (s != GK_NULL && stack_of(g, t, s, "sample", i, &sid))
			return -1;
		if (builder_add_stack_sample(&g->b, p, th, w, has_time ? at : 0, has_time, sid,
					     g->err))
			return -1;
	}
	if (build_allocations(g, t, th, T_NATIVE) || build_allocations(g, t, th, T_JS))
		return -1;
	return 0;
}

/* A thread object, begun. */
static int
read_thread(struct gecko *g, uint32_t ctx)
{
	struct gk_thread t;
	enum json_token tok;
	int ret = -1;

	memset(&t, 0, sizeof(t));
	t.ctx = ctx;
	t.line = g->jr->tok_line;
	t.pid = t.tid = -1;
	while ((tok = next(g)) == JSON_KEY) {
		int table = -1;

		for (int k = 0; k < NR_TABLES; k++)
			if (is(g, table_names[k]))
				table = k;
		if (table >= 0) {
			if ((tok = next(g)) == JSON_OBJECT_BEGIN) {
				if (read_table(g, &t, (enum gk_table)table))
					goto out;
			} else if (skip(g, tok)) {
				goto out;
			}
		} else if (is(g, "stringTable") || is(g, "stringArray")) {
			if ((tok = next(g)) == JSON_ARRAY_BEGIN) {
				if (read_strings(g, &t.strings, &t.nr_strings, &t.alloc_strings))
					goto out;
				t.has_strings = true;
			} else if (skip(g, tok)) {
				goto out;
			}
		} else if (is(g, "name")) {
			if ((tok = next(g)) == JSON_STRING) {
				free(t.name);
				t.name = xstrndup(json_reader_text(g->jr), json_reader_len(g->jr));
			} else if (skip(g, tok)) {
				goto out;
			}
		} else if (is(g, "pid") || is(g, "tid")) {
			bool pid = is(g, "pid");

			tok = next(g);
			read_id(g, tok, pid ? &t.pid : &t.tid);
			if (skip(g, tok))
				goto out;
		} else if (skip(g, next(g))) {
			goto out;
		}
	}
	if (tok != JSON_OBJECT_END) {
		json_fail(g, tok);
		goto out;
	}
	if (thread_ready(g, &t)) {
		ret = build_thread(g, &t);
	} else {
		ALLOC_GROW(g->waiting, g->nr_waiting, g->alloc_waiting);
		g->waiting[g->nr_waiting++] = t;
		return 0;
	}
out:
	thread_release(&t);
	return ret;
}

/*
 * A thread written as JSON text inside the document (Gecko before 2017):
 * read with a reader of its own.
 */
static int
read_thread_text(struct gecko *g, uint32_t ctx)
{
	struct json_reader sub, *outer = g->jr;
	char *text = xstrndup(json_reader_text(outer), json_reader_len(outer));
	enum json_token tok;
	int ret;

	json_reader_init_mem(&sub, text, json_reader_len(outer));
	g->jr = &sub;
	tok = next(g);
	if (tok == JSON_OBJECT_BEGIN)
		ret = read_thread(g, ctx);
	else
		ret = tok == JSON_ERROR ? -1 : bad(g, "a thread is not an object");
	g->jr = outer;
	if (ret && g->err) {
		/* The message is rewritten from a copy: set_at() replaces it. */
		char *msg = xstrdup(g->err->msg ? g->err->msg : "");

		tf_error_set_at(g->err, NULL, outer->tok_line, "in a thread given as JSON text: %s",
				msg);
		free(msg);
	}
	json_reader_release(&sub);
	free(text);
	return ret;
}

static int
read_meta(struct gecko *g, uint32_t ctx)
{
	enum json_token tok;

	while ((tok = next(g)) == JSON_KEY) {
		if (is(g, "startTime")) {
			int64_t v;

			tok = next(g);
			if (tok == JSON_NUMBER && json_parse_scaled(json_reader_text(g->jr),
								    json_reader_len(g->jr), MS_SHIFT, &v)) {
				g->ctxs[ctx].start = v;
				g->ctxs[ctx].has_start = true;
			} else if (skip(g, tok)) {
				return -1;
			}
		} else if (is(g, "categories")) {
			if ((tok = next(g)) != JSON_ARRAY_BEGIN) {
				if (skip(g, tok))
					return -1;
				continue;
			}
			while ((tok = next(g)) == JSON_OBJECT_BEGIN) {
				str_id name = STR_EMPTY;

				while ((tok = next(g)) == JSON_KEY) {
					bool is_name = is(g, "name");

					tok = next(g);
					if (is_name && tok == JSON_STRING)
						name = category_str(g->ps, json_reader_text(g->jr),
								    json_reader_len(g->jr));
					else if (skip(g, tok))
						return -1;
				}
				if (tok != JSON_OBJECT_END)
					return json_fail(g, tok);
				ALLOC_GROW(g->ctxs[ctx].cats, g->ctxs[ctx].nr_cats, g->ctxs[ctx].alloc_cats);
				g->ctxs[ctx].cats[g->ctxs[ctx].nr_cats++] = name;
			}
			if (tok != JSON_ARRAY_END)
				return tok <= JSON_TRUNCATED ? json_fail(g, tok)
							     : bad(g, "a category is not an object");
		} else if (skip(g, next(g))) {
			return -1;
		}
	}
	if (tok != JSON_OBJECT_END)
		return json_fail(g, tok);
	g->ctxs[ctx].meta_done = true;
	return 0;
}

static int
read_shared(struct gecko *g, uint32_t ctx)
{
	enum json_token tok;

	while ((tok = next(g)) == JSON_KEY) {
		bool strings = is(g, "stringArray") || is(g, "stringTable");

		tok = next(g);
		if (strings && tok == JSON_ARRAY_BEGIN) {
			struct gk_ctx *c = &g->ctxs[ctx];

			if (read_strings(g, &c->shared, &c->nr_shared, &c->alloc_shared))
				return -1;
			c->has_shared = true;
		} else if (skip(g, tok)) {
			return -1;
		}
	}
	return tok == JSON_OBJECT_END ? 0 : json_fail(g, tok);
}

static int
read_threads(struct gecko *g, uint32_t ctx)
{
	enum json_token tok;

	while ((tok = next(g)) != JSON_ARRAY_END) {
		if (tok == JSON_OBJECT_BEGIN) {
			if (read_thread(g, ctx))
				return -1;
		} else if (tok == JSON_STRING) {
			if (read_thread_text(g, ctx))
				return -1;
		} else {
			return tok <= JSON_TRUNCATED ? json_fail(g, tok) : bad(g, "a thread is not an object");
		}
		if (progress(g))
			return -1;
	}
	return 0;
}

static uint32_t
new_ctx(struct gecko *g, uint32_t parent)
{
	ALLOC_GROW(g->ctxs, g->nr_ctxs, g->alloc_ctxs);
	memset(&g->ctxs[g->nr_ctxs], 0, sizeof(g->ctxs[0]));
	g->ctxs[g->nr_ctxs].parent = parent;
	return (uint32_t)g->nr_ctxs++;
}

/*
 * In a "processes" array, after an element: the next one. A process is
 * a profile object (entered: *ctx becomes it), or JSON text (skipped,
 * counted). Returns 1 at the array's end, 0 in a new process, -1.
 */
static int
next_process(struct gecko *g, uint32_t *ctx)
{
	enum json_token tok;

	while ((tok = next(g)) == JSON_STRING) {
		if (!g->string_threads++)
			g->string_line = g->jr->tok_line;
	}
	if (tok == JSON_ARRAY_END)
		return 1;
	if (tok == JSON_OBJECT_BEGIN) {
		*ctx = new_ctx(g, *ctx);
		g->ctxs[*ctx].process = true;
		return 0;
	}
	return tok <= JSON_TRUNCATED ? json_fail(g, tok) : bad(g, "a process is not an object");
}

/*
 * The document, begun: a profile with its processes (profiles of the
 * same form, nested to any depth), or a DevTools recording, whose
 * "profile" is one. One loop reads the keys of whichever profile is open,
 * the nesting kept in the contexts' parents, not on the C stack.
 */
static int
read_document(struct gecko *g)
{
	uint32_t ctx = new_ctx(g, UINT32_MAX);
	enum json_token tok;
	int r;

	for (;;) {
		tok = next(g);
		if (tok == JSON_OBJECT_END) {
			bool process = g->ctxs[ctx].process;

			if (g->ctxs[ctx].parent == UINT32_MAX)
				return 0;
			ctx = g->ctxs[ctx].parent;
			/* Back in the parent's "processes" array, or its keys. */
			if (process && next_process(g, &ctx) < 0)
				return -1;
			continue;
		}
		if (tok != JSON_KEY)
			return json_fail(g, tok);
		if (is(g, "meta")) {
			if ((tok = next(g)) != JSON_OBJECT_BEGIN)
				return tok <= JSON_TRUNCATED ? json_fail(g, tok)
							     : bad(g, "meta is not an object");
			if (read_meta(g, ctx))
				return -1;
		} else if (is(g, "threads")) {
			if ((tok = next(g)) != JSON_ARRAY_BEGIN)
				return tok <= JSON_TRUNCATED ? json_fail(g, tok)
							     : bad(g, "threads is not an array");
			if (read_threads(g, ctx))
				return -1;
		} else if (is(g, "shared")) {
			if ((tok = next(g)) != JSON_OBJECT_BEGIN) {
				if (skip(g, tok))
					return -1;
			} else if (read_shared(g, ctx)) {
				return -1;
			}
		} else if (is(g, "profile") && ctx == 0 && !g->devtools) {
			/* A DevTools recording: all that counts is under "profile". */
			if ((tok = next(g)) != JSON_OBJECT_BEGIN) {
				if (skip(g, tok))
					return -1;
				continue;
			}
			g->devtools = true;
			g->ctxs[0].meta_done = true;
			ctx = new_ctx(g, ctx);
		} else if (is(g, "processes")) {
			if ((tok = next(g)) != JSON_ARRAY_BEGIN) {
				if (skip(g, tok))
					return -1;
				continue;
			}
			r = next_process(g, &ctx);
			if (r < 0)
				return -1;
		} else if (skip(g, next(g))) {
			return -1;
		}
	}
}

static void
release(struct gecko *g)
{
	for (size_t i = 0; i < g->nr_ctxs; i++) {
		free(g->ctxs[i].cats);
		free(g->ctxs[i].shared);
	}
	for (size_t i = 0; i < g->nr_waiting; i++)
		thread_release(&g->waiting[i]);
	free(g->ctxs);
	free(g->waiting);
	free(g->stack_frame);
	free(g->stack_sid);
	free(g->stack_cat);
	free(g->frame_cache);
	free(g->frame_cache_cat);
	builder_release(&g->b);
}

int
gecko_parse(struct json_reader *jr, const struct import_options *opts, struct profile_set *ps,
	    struct tf_error *err)
{
	static const struct import_options defaults;
	struct gecko g;
	enum json_token tok;
	int ret = -1;

	memset(&g, 0, sizeof(g));
	g.jr = jr;
	g.ps = ps;
	g.opts = opts ? opts : &defaults;
	g.err = err;
	builder_init(&g.b, ps);
	g.b.max_samples = g.opts->max_samples;
	ps->format = GECKO_FORMAT;
	g.root_name = ps_str(ps, "(root)", 6);

	tok = next(&g);
	if (tok != JSON_OBJECT_BEGIN) {
		if (tok != JSON_ERROR)
			bad(&g, "not a Gecko profile: expected an object");
		goto out;
	}
	if (read_document(&g))
		goto out;
	tok = next(&g);
	if (tok != JSON_END) {
		if (tok == JSON_TRUNCATED || tok == JSON_ERROR)
			json_fail(&g, tok);
		else
			bad(&g, "more after the profile");
		goto out;
	}
	if (g.nr_ctxs == 1 && !g.ctxs[0].meta_done && !g.nr_waiting) {
		tf_error_set_at(err, NULL, jr->line, "not a Gecko profile: no meta, threads or profile");
		goto out;
	}
	/* Threads whose meta or strings came after them. */
	for (size_t i = 0; i < g.nr_waiting; i++) {
		struct gk_thread *t = &g.waiting[i];
		size_t nr;

		if (!t->has_strings && thread_strings(&g, t, &nr) == t->strings) {
			tf_error_set_at(err, NULL, t->line, "thread '%s': no string table",
					t->name ? t->name : "");
			goto out;
		}
		if (build_thread(&g, t))
			goto out;
		thread_release(t);
	}
	if (g.string_threads)
		profile_set_warn(ps, g.string_line,
				 "%llu process%s given as JSON text (Gecko before 2017) skipped",
				 (unsigned long long)g.string_threads,
				 g.string_threads == 1 ? "" : "es");
	ret = 0;
out:
	if (g.opts->progress)
		atomic_fetch_add(&g.opts->progress->bytes_done, jr->base + jr->pos - g.reported);
	release(&g);
	return ret;
}

static int
gecko_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	   struct tf_error *err)
{
	return json_reader_load(in, gecko_parse, opts, ps, err);
}

/* Whether a JSON text has the object key name (with its quotes). */
static bool
has_key(const char *data, size_t len, const char *name)
{
	char q[64];
	int n = snprintf(q, sizeof(q), "\"%s\"", name);

	return n > 0 && (size_t)n < sizeof(q) && memmem(data, len, q, (size_t)n);
}

/*
 * By keys near the start: a profile's meta (startTime, stackwalk or
 * preprocessedProfileVersion) with threads or libs; a DevTools recording's
 * first keys and its Gecko markers or allocations. A recording's profile
 * comes after its markers and allocations, often past the probe window.
 */
static int
gecko_probe(const char *data, size_t len)
{
	if (json_first_byte(data, len) != '{')
		return 0;
	if (has_key(data, len, "meta") &&
	    (has_key(data, len, "threads") || has_key(data, len, "libs")) &&
	    (has_key(data, len, "startTime") || has_key(data, len, "stackwalk") ||
	     has_key(data, len, "preprocessedProfileVersion")))
		return 90;
	if (has_key(data, len, "duration") && has_key(data, len, "markers") &&
	    (has_key(data, len, "allocations") || has_key(data, len, "ticks")) &&
	    (has_key(data, len, "profile") || has_key(data, len, "label")))
		return 80;
	return 0;
}

static const char *const gecko_names[] = { ".gecko.json", NULL };

const struct importer importer_gecko = {
	.name = "gecko",
	.description = GECKO_FORMAT,
	.probe = gecko_probe,
	.load = gecko_load,
	.names = gecko_names,
};
