#include "config.h"

#include "tflame/jsframes.h"

#include <stdlib.h>
#include <string.h>

#include "tflame/hash.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

void
js_frames_init(struct js_frames *jf)
{
	memset(jf, 0, sizeof(*jf));
	jf->mask = 63;
	jf->slots = xzalloc_table(jf->mask + 1, sizeof(*jf->slots));
}

void
js_frames_release(struct js_frames *jf)
{
	free(jf->cf);
	free(jf->slots);
	free(jf->frames);
	memset(jf, 0, sizeof(*jf));
}

static uint32_t
cf_hash(const struct js_call_frame *c)
{
	return (uint32_t)hash_pair(hash_pair(c->name, c->url),
				   ((uint64_t)(uint32_t)c->line << 32) | (uint32_t)c->col);
}

static bool
cf_eq(const struct js_call_frame *a, const struct js_call_frame *b)
{
	return a->name == b->name && a->url == b->url && a->line == b->line && a->col == b->col;
}

static void
slots_grow(struct js_frames *jf)
{
	uint32_t size = (jf->mask + 1) * 2;
	uint64_t *s = xzalloc_table(size, sizeof(*s));

	for (uint32_t i = 0; i < jf->nr; i++) {
		uint32_t h = cf_hash(&jf->cf[i]), pos = h & (size - 1);

		while (s[pos])
			pos = (pos + 1) & (size - 1);
		s[pos] = ((uint64_t)h << 32) | (i + 1);
	}
	free(jf->slots);
	jf->slots = s;
	jf->mask = size - 1;
}

/* A 0-based line or column as stored: -1 for unknown or out of range. */
static int32_t
position(int64_t v)
{
	return v >= 0 && v < INT32_MAX ? (int32_t)v : -1;
}

uint32_t
js_frames_add(struct js_frames *jf, struct profile_set *ps, const char *name, size_t name_len,
	      const char *url, size_t url_len, int64_t line0, int64_t col0)
{
	struct js_call_frame c;
	uint32_t h, pos;

	if (jf->frames)
		BUG("js_frames_add() after js_frames_finish()");
	c.name = name_len ? ps_str(ps, name, name_len) : STR_EMPTY;
	c.url = url_len ? ps_str(ps, url, url_len) : STR_EMPTY;
	c.line = position(line0);
	c.col = c.line >= 0 ? position(col0) : -1;
	h = cf_hash(&c);
	for (pos = h & jf->mask; jf->slots[pos]; pos = (pos + 1) & jf->mask) {
		uint32_t i = (uint32_t)jf->slots[pos] - 1;

		if ((uint32_t)(jf->slots[pos] >> 32) == h && cf_eq(&jf->cf[i], &c))
			return i;
	}
	if (jf->nr >= UINT32_MAX - 2)
		die("too many distinct JavaScript call frames");
	ALLOC_GROW(jf->cf, jf->nr, jf->alloc);
	jf->cf[jf->nr] = c;
	jf->slots[pos] = ((uint64_t)h << 32) | (jf->nr + 1);
	if (++jf->nr * 2 > jf->mask + 1)
		slots_grow(jf);
	return jf->nr - 1;
}

/* The last part of a URL's path, without a query or fragment: [*start, *end). */
static void
url_base(const char *url, size_t len, size_t *start, size_t *end)
{
	size_t e = 0, s;

	while (e < len && url[e] != '?' && url[e] != '#')
		e++;
	s = e;
	while (s > 0 && url[s - 1] != '/')
		s--;
	if (s == e) { /* "https://host/": no last part */
		s = 0;
		e = len;
	}
	*start = s;
	*end = e;
}

void
js_script_module(const char *url, size_t len, struct strbuf *out)
{
	static const char nm[] = "/node_modules/";
	size_t s, e, from = SIZE_MAX;

	if (!len)
		return;
	if (len > 5 && !memcmp(url, "node:", 5)) {
		strbuf_add(out, url, len);
		return;
	}
	url_base(url, len, &s, &e);
	/* The package and the path inside it, below the last node_modules. */
	for (size_t i = 0; i + sizeof(nm) - 1 <= s; i++)
		if (!memcmp(url + i, nm, sizeof(nm) - 1))
			from = i + sizeof(nm) - 1;
	if (from != SIZE_MAX && from < s)
		s = from;
	strbuf_add(out, url + s, e - s);
}

/* " BASE:LINE:COL" of a call frame with a URL (1-based), the parts it knows. */
static void
add_position(const struct profile_set *ps, const struct js_call_frame *c, struct strbuf *out)
{
	const char *url = ps_get(ps, c->url);
	size_t s, e;

	url_base(url, intern_len(&ps->strings, c->url), &s, &e);
	strbuf_addch(out, ' ');
	strbuf_add(out, url + s, e - s);
	if (c->line >= 0)
		strbuf_addf(out, ":%ld", (long)c->line + 1);
	if (c->col >= 0)
		strbuf_addf(out, ":%ld", (long)c->col + 1);
}

/* How many call frames share a (name, module): a small open-addressed count. */
struct name_count {
	uint64_t *slots; /* (name << 32 | module) + 1, 0 empty */
	uint32_t *count;
	uint32_t mask;
};

static uint32_t *
name_count_slot(struct name_count *nc, str_id name, str_id module)
{
	uint64_t key = ((uint64_t)name << 32 | module) + 1;
	uint32_t pos = (uint32_t)hash_u64(key) & nc->mask;

	while (nc->slots[pos] && nc->slots[pos] != key)
		pos = (pos + 1) & nc->mask;
	nc->slots[pos] = key;
	return &nc->count[pos];
}

void
js_frames_finish(struct js_frames *jf, struct profile_set *ps)
{
	struct strbuf sb = STRBUF_INIT;
	str_id *module = xmalloc(sizeof(*module) * ((size_t)jf->nr + 1));
	struct name_count nc;
	uint32_t size = 16;

	if (jf->frames)
		BUG("js_frames_finish() twice");
	while (size < jf->nr * 2u && size < (1u << 31))
		size *= 2;
	nc.mask = size - 1;
	nc.slots = xzalloc_table(size, sizeof(*nc.slots));
	nc.count = xzalloc_table(size, sizeof(*nc.count));

	for (uint32_t i = 0; i < jf->nr; i++) {
		const struct js_call_frame *c = &jf->cf[i];

		strbuf_reset(&sb);
		js_script_module(ps_get(ps, c->url), intern_len(&ps->strings, c->url), &sb);
		module[i] = sb.len ? ps_str(ps, sb.buf, sb.len) : STR_EMPTY;
		if (c->name != STR_EMPTY && c->url != STR_EMPTY)
			(*name_count_slot(&nc, c->name, module[i]))++;
	}

	jf->frames = xmalloc(sizeof(*jf->frames) * ((size_t)jf->nr + 1));
	for (uint32_t i = 0; i < jf->nr; i++) {
		const struct js_call_frame *c = &jf->cf[i];
		struct frame f;

		strbuf_reset(&sb);
		if (c->name == STR_EMPTY) {
			strbuf_addstr(&sb, "(anonymous)");
			if (c->url != STR_EMPTY)
				add_position(ps, c, &sb);
		} else {
			strbuf_add(&sb, ps_get(ps, c->name), intern_len(&ps->strings, c->name));
			if (c->url != STR_EMPTY && *name_count_slot(&nc, c->name, module[i]) > 1)
				add_position(ps, c, &sb);
		}
		memset(&f, 0, sizeof(f));
		f.name = ps_str(ps, sb.buf, sb.len);
		f.module = module[i];
		f.file = c->url;
		if (c->url != STR_EMPTY && c->line >= 0) {
			f.line = (uint32_t)c->line + 1;
			f.flags = FRAME_HAS_LINE;
		}
		jf->frames[i] = profile_set_frame(ps, &f);
	}
	free(nc.slots);
	free(nc.count);
	free(module);
	strbuf_release(&sb);
}
