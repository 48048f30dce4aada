#include "config.h"

#include "tflame/import.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/json_reader.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * V8's tick log, preprocessed: node --prof writes isolate-*.log, and
 * node --prof-process --preprocess isolate-*.log turns it into
 *
 *	{"code": [{"name", "type": "CPP" | "JS" | "CODE" | "SHARED_LIB" | ...,
 *		   "kind"?, "func"?, "tm"?}, ...],
 *	 "functions": [...],
 *	 "ticks": [{"tm": µs, "vm": STATE, "s": [CODE, OFFSET, CODE, OFFSET, ...]}]}
 *
 * A tick's s lists the stack leaf first as pairs, a code index (or an
 * address, or -1 for none) and an offset; the frames are the even
 * entries. Ticks are taken in time order, and a tick weighs the time since
 * the tick before, the first one since 0 (the log's start): speedscope's
 * weights, so a tick lasts from the one before to itself. Frames are
 * named as speedscope names them: "(c++) name" out of nm's "T name(...)",
 * "(LIB) path", JS functions as "name" with their script, line and column
 * (or, with no name, "(anonymous) script:line:col" after the script's
 * last part, as the .cpuprofile importer names them, so that two
 * anonymous functions of one line stay apart, node's own scripts too,
 * whose node: URLs speedscope leaves unread), code stubs as "(builtin) name", "(IC)
 * name", "(bytecode) ~name", an index past the code as its hex address,
 * and a code entry without a type "(unknown type)".
 *
 * Everything is kept until the end of the document, as ticks may come
 * before code: per code entry its name and type (frames are made only for
 * the entries a tick names), per tick its time and the even half of s.
 */

#define V8LOG_FORMAT "V8 tick log"

enum code_type { CT_NONE, CT_CPP, CT_SHARED_LIB, CT_JS, CT_CODE, CT_OTHER };

struct v8_code {
	str_id name, type_name, kind;
	enum code_type type;
	frame_id frame;         /* FRAME_NONE until a tick needs it */
};

struct v8_tick {
	int64_t tm;
	size_t first, nr;       /* its code entries in v8log.stack */
	size_t seq;             /* input order, for a stable sort */
};

struct v8log {
	struct json_reader *jr;
	struct profile_set *ps;
	const struct import_options *opts;
	struct tf_error *err;
	uint64_t reported;

	struct v8_code *code;
	size_t nr_code, alloc_code;
	struct v8_tick *ticks;
	size_t nr_ticks, alloc_ticks;
	int64_t *stack;
	size_t nr_stack, alloc_stack;
	bool has_code, has_ticks;
	frame_id unknown_type;
};

/* ---------------------------------------------------------------- reading */

static enum code_type
code_type(const char *s)
{
	return !strcmp(s, "CPP") ? CT_CPP : !strcmp(s, "SHARED_LIB") ? CT_SHARED_LIB
	     : !strcmp(s, "JS") ? CT_JS : !strcmp(s, "CODE") ? CT_CODE : CT_OTHER;
}

/* One entry of code (begun). */
static int
read_code(struct v8log *v)
{
	struct v8_code c = { STR_EMPTY, STR_EMPTY, STR_EMPTY, CT_NONE, FRAME_NONE };
	enum json_token tok;

	while ((tok = json_reader_next(v->jr, v->err)) == JSON_KEY) {
		const char *key = json_reader_text(v->jr);
		int which = !strcmp(key, "name") ? 1 : !strcmp(key, "type") ? 2
			  : !strcmp(key, "kind") ? 3 : 0;

		tok = json_reader_next(v->jr, v->err);
		if (which && tok == JSON_STRING) {
			str_id s = ps_str(v->ps, json_reader_text(v->jr), json_reader_len(v->jr));

			if (which == 1) {
				c.name = s;
			} else if (which == 2) {
				c.type_name = s;
				c.type = json_reader_len(v->jr) ? code_type(json_reader_text(v->jr))
								  : CT_NONE;
			} else {
				c.kind = s;
			}
		} else if (json_reader_skip_value(v->jr, tok, v->err)) {
			return -1;
		}
	}
	if (tok != JSON_OBJECT_END)
		return json_reader_fail(v->jr, tok, v->err);
	ALLOC_GROW(v->code, v->nr_code, v->alloc_code);
	v->code[v->nr_code++] = c;
	return 0;
}

static int
read_codes(struct v8log *v)
{
	enum json_token tok;

	v->has_code = true;
	while ((tok = json_reader_next(v->jr, v->err)) != JSON_ARRAY_END) {
		if (tok == JSON_OBJECT_BEGIN) {
			if (read_code(v))
				return -1;
		} else if (tok == JSON_NULL) {
			/* no entry: "(unknown type)" */
			ALLOC_GROW(v->code, v->nr_code, v->alloc_code);
			v->code[v->nr_code++] = (struct v8_code){ STR_EMPTY, STR_EMPTY, STR_EMPTY,
								   CT_NONE, FRAME_NONE };
		} else if (tok <= JSON_TRUNCATED) {
			return json_reader_fail(v->jr, tok, v->err);
		} else {
			return json_reader_badf(v->jr, v->err, "a code entry is not an object");
		}
		if (json_reader_progress(v->jr, v->opts->progress, &v->reported, v->err))
			return -1;
	}
	return 0;
}

/* s of a tick (begun): keep the even entries. */
static int
read_stack(struct v8log *v, struct v8_tick *t)
{
	enum json_token tok;
	size_t i = 0;

	t->first = v->nr_stack;
	t->nr = 0;
	while ((tok = json_reader_next(v->jr, v->err)) == JSON_NUMBER) {
		int64_t x;

		if (!json_reader_int(v->jr, &x))
			return json_reader_badf(v->jr, v->err, "s: '%s' is not a code index or "
					       "address", json_reader_text(v->jr));
		if (!(i++ & 1)) {
			ALLOC_GROW(v->stack, v->nr_stack, v->alloc_stack);
			v->stack[v->nr_stack++] = x;
			t->nr++;
		}
	}
	if (tok == JSON_ARRAY_END)
		return 0;
	if (tok <= JSON_TRUNCATED)
		return json_reader_fail(v->jr, tok, v->err);
	return json_reader_badf(v->jr, v->err, "s: not a number");
}

/* One tick (begun). */
static int
read_tick(struct v8log *v)
{
	struct v8_tick t = { 0, v->nr_stack, 0, v->nr_ticks };
	enum json_token tok;
	bool has_tm = false;

	while ((tok = json_reader_next(v->jr, v->err)) == JSON_KEY) {
		char key[64];
		int which;

		snprintf(key, sizeof(key), "%s", json_reader_text(v->jr));
		which = !strcmp(key, "tm") ? 1
		      : !strcmp(key, "s") ? 2
		      : 0;

		tok = json_reader_next(v->jr, v->err);
		if (which == 1 && tok == JSON_NUMBER) {
			if (!json_reader_int(v->jr, &t.tm))
				return json_reader_badf(v->jr, v->err, "tm '%s' is not a time in us",
						       json_reader_text(v->jr));
			has_tm = true;
		} else if (which == 2 && tok == JSON_ARRAY_BEGIN) {
			if (t.nr)
				return json_reader_badf(v->jr, v->err, "a tick with two stacks");
			if (read_stack(v, &t))
				return -1;
		} else if (which && tok > JSON_TRUNCATED) {
			return json_reader_badf(v->jr, v->err, "%s of a tick has the wrong type", key);
		} else if (json_reader_skip_value(v->jr, tok, v->err)) {
			return -1;
		}
	}
	if (tok != JSON_OBJECT_END)
		return json_reader_fail(v->jr, tok, v->err);
	if (!has_tm)
		return json_reader_badf(v->jr, v->err, "a tick without tm");
	ALLOC_GROW(v->ticks, v->nr_ticks, v->alloc_ticks);
	v->ticks[v->nr_ticks++] = t;
	return 0;
}

static int
read_ticks(struct v8log *v)
{
	enum json_token tok;

	v->has_ticks = true;
	while ((tok = json_reader_next(v->jr, v->err)) == JSON_OBJECT_BEGIN) {
		if (read_tick(v))
			return -1;
		if (json_reader_progress(v->jr, v->opts->progress, &v->reported, v->err))
			return -1;
	}
	if (tok == JSON_ARRAY_END)
		return 0;
	if (tok <= JSON_TRUNCATED)
		return json_reader_fail(v->jr, tok, v->err);
	return json_reader_badf(v->jr, v->err, "a tick is not an object");
}

static int
read_document(struct v8log *v)
{
	enum json_token tok = json_reader_next(v->jr, v->err);

	if (tok != JSON_OBJECT_BEGIN) {
		if (tok <= JSON_TRUNCATED)
			return json_reader_fail(v->jr, tok, v->err);
		return json_reader_badf(v->jr, v->err, "not a V8 tick log: expected an object");
	}
	while ((tok = json_reader_next(v->jr, v->err)) == JSON_KEY) {
		char key[64];
		int which;

		snprintf(key, sizeof(key), "%s", json_reader_text(v->jr));
		which = !strcmp(key, "code") ? 1
		      : !strcmp(key, "ticks") ? 2
		      : 0;

		tok = json_reader_next(v->jr, v->err);
		if (which == 1 && tok == JSON_ARRAY_BEGIN && !v->has_code) {
			if (read_codes(v))
				return -1;
		} else if (which == 2 && tok == JSON_ARRAY_BEGIN && !v->has_ticks) {
			if (read_ticks(v))
				return -1;
		} else if (which && tok > JSON_TRUNCATED) {
			return json_reader_badf(v->jr, v->err, "%s: not the one array of a V8 tick log",
					       key);
		} else if (json_reader_skip_value(v->jr, tok, v->err)) {
			return -1;
		}
	}
	if (tok != JSON_OBJECT_END)
		return json_reader_fail(v->jr, tok, v->err);
	tok = json_reader_next(v->jr, v->err);
	if (tok != JSON_END)
		return json_reader_fail(v->jr, tok, v->err);
	if (!v->has_ticks)
		return tf_error_set(v->err, "no ticks: not a V8 tick log");
	return 0;
}

/* ---------------------------------------------------------------- naming */

static frame_id
named_frame(struct v8log *v, const char *name, size_t len, const char *file, size_t file_len,
	    int64_t line)
{
	struct frame f;

	memset(&f, 0, sizeof(f));
	f.name = ps_str(v->ps, name, len);
	f.module = STR_EMPTY;
	f.file = file_len ? ps_str(v->ps, file, file_len) : STR_EMPTY;
	if (file_len && line >= 0 && line <= UINT32_MAX) {
		f.line = (uint32_t)line;
		f.flags = FRAME_HAS_LINE;
	}
	return profile_set_frame(v->ps, &f);
}

static bool
is_js_name_char(char c)
{
	return isalnum((unsigned char)c) || strchr("._-$", c);
}

static bool
is_js_file_char(char c)
{
	return isalnum((unsigned char)c) || strchr(".-_/$", c);
}

/*
 * A JS code name, "name file:line:col", as speedscope reads it with
 * /([\w.\-$]*) ([\w.\-\/$]*):(\d+):(\d+)/ (\w without the underscore
 * spelled out): the leftmost match. Each part is a maximal run, so at a
 * given start there is at most one way to match. Fills the parts and
 * returns true, or false when nothing matches.
 */
static bool
match_js(const char *s, size_t len, size_t *name, size_t *name_len, size_t *file,
	 size_t *file_len, int64_t *line, int64_t *col)
{
	for (size_t start = 0; start < len; start++) {
		size_t i = start, digits;
		int64_t l = 0, c = 0;

		while (i < len && is_js_name_char(s[i]))
			i++;
		if (i >= len || s[i] != ' ')
			continue;
		*name = start;
		*name_len = i - start;
		*file = ++i;
		while (i < len && is_js_file_char(s[i]))
			i++;
		*file_len = i - *file;
		if (i >= len || s[i++] != ':')
			continue;
		for (digits = 0; i < len && isdigit((unsigned char)s[i]); i++, digits++)
			if (l < INT64_MAX / 100)
				l = l * 10 + (s[i] - '0');
		if (!digits || i >= len || s[i++] != ':' || i >= len ||
		    !isdigit((unsigned char)s[i]))
			continue;
		for (; i < len && isdigit((unsigned char)s[i]); i++)
			if (c < INT64_MAX / 100)
				c = c * 10 + (s[i] - '0');
		*line = l;
		*col = c;
		return true;
	}
	return false;
}

/*
 * An anonymous function whose script speedscope's expression cannot read
 * (" node:internal/main/run_main_module:1:1": node's own URLs hold a
 * colon): a space, then the script up to ":line:col" at the end. Fills
 * the parts as match_js() does (no name) and returns true, or false.
 */
static bool
match_anonymous(const char *s, size_t len, size_t *file, size_t *file_len, int64_t *line,
		int64_t *col)
{
	size_t end = len, colon[2];
	int64_t v[2] = { 0, 0 };

	if (len < 6 || s[0] != ' ')
		return false;
	for (int k = 1; k >= 0; k--) {
		size_t digits = 0;

		while (end > 1 && isdigit((unsigned char)s[end - 1])) {
			end--;
			digits++;
		}
		if (!digits || digits > 9 || s[end - 1] != ':')
			return false;
		colon[k] = --end;
		for (size_t i = colon[k] + 1; i < colon[k] + 1 + digits; i++)
			v[k] = v[k] * 10 + (s[i] - '0');
	}
	if (colon[0] <= 1)
		return false;
	for (size_t i = 1; i < colon[0]; i++)
		if (s[i] == ' ')
			return false;
	*file = 1;
	*file_len = colon[0] - 1;
	*line = v[0];
	*col = v[1];
	return true;
}

/* nm's "T name(args)": the name after the first "t " or "T ", up to ( or <. */
static frame_id
cpp_frame(struct v8log *v, const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	frame_id f;

	for (size_t i = 0; i + 1 < len; i++) {
		if ((s[i] == 't' || s[i] == 'T') && s[i + 1] == ' ') {
			size_t end = i + 2;

			while (end < len && s[end] != '(' && s[end] != '<')
				end++;
			strbuf_addstr(&sb, "(c++) ");
			strbuf_add(&sb, s + i + 2, end - i - 2);
			break;
		}
	}
	if (!sb.len)
		strbuf_add(&sb, s, len);
	f = named_frame(v, sb.buf, sb.len, NULL, 0, -1);
	strbuf_release(&sb);
	return f;
}

static frame_id
js_frame(struct v8log *v, const char *s, size_t len)
{
	size_t name, name_len, file, file_len;
	struct strbuf sb = STRBUF_INIT;
	int64_t line, col;
	frame_id f;

	if (!match_js(s, len, &name, &name_len, &file, &file_len, &line, &col)) {
		if (!match_anonymous(s, len, &file, &file_len, &line, &col))
			return named_frame(v, s, len, NULL, 0, -1);
		name_len = 0;
	}
	if (name_len) {
		strbuf_add(&sb, s + name, name_len);
	} else if (file_len) {
		const char *base = memrchr(s + file, '/', file_len);
		size_t off = base ? (size_t)(base + 1 - s) : file;

		strbuf_addstr(&sb, "(anonymous) ");
		strbuf_add(&sb, s + off, file + file_len - off);
		strbuf_addf(&sb, ":%lld:%lld", (long long)line, (long long)col);
	} else {
		strbuf_addstr(&sb, "(anonymous)");
	}
	f = file_len ? named_frame(v, sb.buf, sb.len, s + file, file_len, line)
		     : named_frame(v, sb.buf, sb.len, "(unknown file)", 14, line);
	strbuf_release(&sb);
	return f;
}

/* The prefix speedscope gives a CODE entry of this kind, or NULL. */
static const char *
code_prefix(const char *kind)
{
	static const char *const ic[] = { "LoadIC", "StoreIC", "KeyedStoreIC", "KeyedLoadIC",
					  "LoadGlobalIC", "Handler" };

	for (size_t i = 0; i < sizeof(ic) / sizeof(*ic); i++)
		if (!strcmp(kind, ic[i]))
			return "(IC) ";
	return !strcmp(kind, "BytecodeHandler") ? "(bytecode) ~" : !strcmp(kind, "Stub") ? "(stub) "
	     : !strcmp(kind, "Builtin") ? "(builtin) " : !strcmp(kind, "RegExp") ? "(regexp) "
	     : NULL;
}

static frame_id
code_frame(struct v8log *v, struct v8_code *c)
{
	const char *name = ps_get(v->ps, c->name), *prefix = NULL;
	struct strbuf sb = STRBUF_INIT;

	if (c->frame != FRAME_NONE)
		return c->frame;
	switch (c->type) {
	case CT_NONE:
		c->frame = named_frame(v, "(unknown type)", 14, NULL, 0, -1);
		return c->frame;
	case CT_CPP:
		c->frame = cpp_frame(v, name, strlen(name));
		return c->frame;
	case CT_JS:
		c->frame = js_frame(v, name, strlen(name));
		return c->frame;
	case CT_SHARED_LIB:
		prefix = "(LIB) ";
		break;
	case CT_CODE:
		prefix = code_prefix(ps_get(v->ps, c->kind));
		break;
	case CT_OTHER:
		strbuf_addf(&sb, "(%s) ", ps_get(v->ps, c->type_name));
		break;
	}
	if (prefix)
		strbuf_addstr(&sb, prefix);
	strbuf_addstr(&sb, name);
	c->frame = named_frame(v, sb.buf, sb.len, NULL, 0, -1);
	strbuf_release(&sb);
	return c->frame;
}

/* The frame of s entry id: a code entry, an address, or "(unknown type)". */
static frame_id
entry_frame(struct v8log *v, int64_t id)
{
	if (id >= 0 && (uint64_t)id < v->nr_code)
		return code_frame(v, &v->code[id]);
	if (id > 0 && (uint64_t)id > v->nr_code) {
		char buf[32];
		int n = snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)id);

		return named_frame(v, buf, (size_t)n, NULL, 0, -1);
	}
	/* speedscope reads code[id], undefined for code.length and below 0 */
	if (v->unknown_type == FRAME_NONE)
		v->unknown_type = named_frame(v, "(unknown type)", 14, NULL, 0, -1);
	return v->unknown_type;
}

/* ---------------------------------------------------------------- building */

static int
cmp_tick(const void *a, const void *b)
{
	const struct v8_tick *x = a, *y = b;

	if (x->tm != y->tm)
		return x->tm < y->tm ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
build(struct v8log *v)
{
	struct profile *p = profile_set_profile(v->ps, ps_str(v->ps, "ticks", 5), UNIT_NANOSECONDS);
	thread_id th = profile_set_thread(v->ps, -1, -1, STR_EMPTY);
	int64_t last = 0;
	uint64_t before = 0;
	struct builder b;
	int ret = 0;

	if (v->nr_ticks) /* qsort() wants an array, even of none */
		qsort(v->ticks, v->nr_ticks, sizeof(*v->ticks), cmp_tick);
	p->spans = true;
	builder_init(&b, v->ps);
	b.max_samples = v->opts->max_samples;
	for (size_t i = 0; i < v->nr_ticks && !ret; i++) {
		const struct v8_tick *t = &v->ticks[i];
		uint64_t w = 0;

		/* A tick lasts from the one before; the first from 0. */
		if (t->tm < last) {
			before++;
		} else if (t->tm - last > INT64_MAX / 1000 || last > INT64_MAX / 1000) {
			ret = tf_error_set(v->err, "tick times overflow");
			break;
		} else {
			w = (uint64_t)(t->tm - last) * 1000;
		}
		builder_begin_sample(&b, p, th, w, last * 1000, true);
		for (size_t k = 0; k < t->nr; k++) {
			int64_t id = v->stack[t->first + k];

			if (id != -1)
				builder_push_frame(&b, entry_frame(v, id));
		}
		ret = builder_end_sample(&b, BUILDER_LEAF_FIRST, v->err);
		if (t->tm > last)
			last = t->tm;
		if (builder_stopped(&b))
			break;
	}
	if (before)
		profile_set_warn(v->ps, 0, "%llu ticks before the log's start weigh 0",
				 (unsigned long long)before);
	builder_release(&b);
	return ret;
}

int
v8log_parse(struct json_reader *jr, const struct import_options *opts,
	    struct profile_set *ps, struct tf_error *err)
{
	static const struct import_options defaults;
	struct v8log v;
	int ret;

	memset(&v, 0, sizeof(v));
	v.jr = jr;
	v.ps = ps;
	v.opts = opts ? opts : &defaults;
	v.err = err;
	v.unknown_type = FRAME_NONE;
	ps->format = V8LOG_FORMAT;

	ret = read_document(&v);
	if (!ret)
		ret = build(&v);
	json_reader_progress_end(jr, v.opts->progress, &v.reported);
	free(v.code);
	free(v.ticks);
	free(v.stack);
	return ret;
}

static int
v8log_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	   struct tf_error *err)
{
	return json_reader_load(in, v8log_parse, opts, ps, err);
}

/*
 * {"code": [...], "functions": [...], "ticks": [...]}; the code array is
 * long, so the probe window may hold only its start: "code" first with a
 * "type" of the log's kinds is enough.
 */
static int
v8log_probe(const char *data, size_t len)
{
	if (json_first_byte(data, len) != '{' || !json_probe_has_key(data, len, "code"))
		return 0;
	if (json_probe_has_key(data, len, "ticks") && json_probe_has_key(data, len, "functions"))
		return 95;
	if (json_probe_has_key(data, len, "type") &&
	    (memmem(data, len, "\"CPP\"", 5) || memmem(data, len, "\"SHARED_LIB\"", 12) ||
	     memmem(data, len, "\"JS\"", 4)))
		return 80;
	return 0;
}

static const char *const v8log_names[] = { ".v8log.json", NULL };

const struct importer importer_v8log = {
	.name = "v8log",
	.description = V8LOG_FORMAT,
	.probe = v8log_probe,
	.load = v8log_load,
	.names = v8log_names,
};
