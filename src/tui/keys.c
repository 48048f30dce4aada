#include "config.h"

#include "tflame/keys.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tflame/error.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/* Up to this many default keys per request; the table is checked below. */
#define KEYS_PER_REQ 4

struct req_entry {
	enum request req; /* REQ_NONE for a heading */
	const char *id;   /* "ZOOM_RESET": the name, once lowered */
	const char *help; /* the help line, or the heading */
	int keys[KEYS_PER_REQ + 1]; /* 0-terminated */
};

#define KEYS_ENTRY_GROUP_(title) { REQ_NONE, NULL, title, { 0 } },
#define KEYS_ENTRY_REQ_(id, help_text, ...) \
	{ REQ_##id, #id, help_text, { __VA_ARGS__, 0 } },
static const struct req_entry req_table[] = {
	REQ_INFO(KEYS_ENTRY_GROUP_, KEYS_ENTRY_REQ_)
	PICKER_REQ_INFO(KEYS_ENTRY_GROUP_, KEYS_ENTRY_REQ_)
};
#undef KEYS_ENTRY_GROUP_
#undef KEYS_ENTRY_REQ_

#define KEYS_MAP_ENTRY_(id, name, help) { name, help },
static const struct {
	const char *name, *help;
} keymap_table[KEYMAP_NR] = {
	KEYMAP_INFO(KEYS_MAP_ENTRY_)
};
#undef KEYS_MAP_ENTRY_

/* The first picker request: PICKER_REQ_INFO comes last in the enum. */
#define KEYS_NO_GROUP_(title)
#define KEYS_FIRST_PICKER_(id, ...) REQ_##id,
static const enum request first_picker_req[] = {
	PICKER_REQ_INFO(KEYS_NO_GROUP_, KEYS_FIRST_PICKER_)
};
#undef KEYS_NO_GROUP_
#undef KEYS_FIRST_PICKER_

static const struct req_entry *
find_entry(enum request req)
{
	for (size_t i = 0; i < ARRAY_SIZE(req_table); i++)
		if (req_table[i].req == req && req != REQ_NONE)
			return &req_table[i];
	return NULL;
}

bool
keys_is_picker(enum request req)
{
	return req >= first_picker_req[0] && req < REQ_COUNT;
}

bool
keys_is_source(enum request req)
{
	return req == REQ_SOURCE_DECL;
}

bool
keys_is_transform(enum request req)
{
	return req >= REQ_TX_FOCUS_SUBTREE && req <= REQ_TX_CANCEL;
}

bool
keys_map_has(enum keymap km, enum request req)
{
	if (req == REQ_NONE)
		return true;
	if (keys_is_picker(req) != (km == KEYMAP_PICKER))
		return false;
	if (keys_is_transform(req) != (km == KEYMAP_TRANSFORM))
		return false;
	switch (req) {
	case REQ_SOURCE_DECL:
		/* The source keymap falls back to the generic one. */
		return km == KEYMAP_SOURCE || km == KEYMAP_GENERIC;
	case REQ_SORT_TOTAL:
	case REQ_SORT_SELF:
	case REQ_SORT_NAME:
	case REQ_SORT_DELTA_TOTAL:
	case REQ_SORT_DELTA_SELF:
		return km != KEYMAP_LEFT_HEAVY && km != KEYMAP_TIME_ORDER &&
		       km != KEYMAP_SOURCE;
	case REQ_LANE_PREV:
	case REQ_LANE_NEXT:
	case REQ_LANE_MERGED:
	case REQ_TIME_RANGE:
		return km != KEYMAP_LEFT_HEAVY && km != KEYMAP_SANDWICH &&
		       km != KEYMAP_SOURCE;
	default:
		return true;
	}
}

/* ------------------------------------------------------------ bindings */

void
keys_init(struct keys *k)
{
	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < ARRAY_SIZE(req_table); i++) {
		const struct req_entry *e = &req_table[i];
		struct keymap_bindings *m;

		if (e->req == REQ_NONE)
			continue;
		m = &k->maps[keys_is_picker(e->req)	 ? KEYMAP_PICKER
			     : keys_is_source(e->req)	 ? KEYMAP_SOURCE
			     : keys_is_transform(e->req) ? KEYMAP_TRANSFORM
							 : KEYMAP_GENERIC];
		for (const int *key = e->keys; *key; key++) {
			ALLOC_GROW(m->b, m->nr, m->alloc);
			m->b[m->nr++] = (struct key_binding){ *key, e->req };
		}
	}
}

void
keys_release(struct keys *k)
{
	for (size_t i = 0; i < KEYMAP_NR; i++)
		free(k->maps[i].b);
	memset(k, 0, sizeof(*k));
}

int
keys_check(const struct keys *k, struct tf_error *err)
{
	for (size_t km = 0; km < KEYMAP_NR; km++) {
		const struct keymap_bindings *m = &k->maps[km];

		if (m->nr_user > m->nr || m->nr > m->alloc)
			return tf_error_set(err, "keymap %s: %zu user bindings of %zu (room %zu)",
					    keys_map_name((enum keymap)km), m->nr_user, m->nr,
					    m->alloc);
		for (size_t i = 0; i < m->nr; i++) {
			const struct key_binding *b = &m->b[i];

			if (b->key <= 0 || b->key >= KEYS_LIMIT || b->req >= REQ_COUNT)
				return tf_error_set(err, "keymap %s: binding %zu: key %d, request %d",
						    keys_map_name((enum keymap)km), i, b->key,
						    (int)b->req);
			if (!keys_map_has((enum keymap)km, b->req))
				return tf_error_set(err, "keymap %s: request %d of the wrong keymap",
						    keys_map_name((enum keymap)km), (int)b->req);
			for (size_t j = 0; j < i; j++)
				if (m->b[j].key == b->key)
					return tf_error_set(err, "keymap %s: key %d bound twice",
							    keys_map_name((enum keymap)km), b->key);
		}
	}
	return 0;
}

/* The binding of key in m itself, or NULL. */
static const struct key_binding *
find_binding(const struct keymap_bindings *m, int key)
{
	for (size_t i = 0; i < m->nr; i++)
		if (m->b[i].key == key)
			return &m->b[i];
	return NULL;
}

void
keys_bind(struct keys *k, enum keymap km, int key, enum request req)
{
	struct keymap_bindings *m = &k->maps[km];
	size_t at = m->nr;

	/* Out with the old binding; the new one goes after the user's others. */
	for (size_t i = 0; i < m->nr; i++)
		if (m->b[i].key == key)
			at = i;
	if (at < m->nr) {
		if (at < m->nr_user)
			m->nr_user--;
		memmove(m->b + at, m->b + at + 1, (m->nr - at - 1) * sizeof(*m->b));
		m->nr--;
	}
	ALLOC_GROW(m->b, m->nr, m->alloc);
	memmove(m->b + m->nr_user + 1, m->b + m->nr_user, (m->nr - m->nr_user) * sizeof(*m->b));
	m->b[m->nr_user++] = (struct key_binding){ key, req };
	m->nr++;
}

/* The keymap km falls back to, or KEYMAP_NR for none. */
static enum keymap
parent(enum keymap km)
{
	return km == KEYMAP_GENERIC || km == KEYMAP_PICKER || km == KEYMAP_TRANSFORM
		       ? KEYMAP_NR
		       : KEYMAP_GENERIC;
}

enum request
keys_request(const struct keys *k, enum keymap km, int key)
{
	/*
	 * A linear scan of ~60 bindings per key press costs nothing next to
	 * a redraw, and keeps the bindings in the order hints want.
	 */
	if (key <= 0 || key >= KEYS_LIMIT)
		return REQ_NONE;
	for (; km != KEYMAP_NR; km = parent(km)) {
		const struct key_binding *b = find_binding(&k->maps[km], key);

		if (b)
			return b->req;
	}
	return REQ_NONE;
}

size_t
keys_of(const struct keys *k, enum keymap km, enum request req, int *out, size_t max)
{
	size_t n = 0;

	if (req == REQ_NONE)
		return 0;
	for (enum keymap m = km; m != KEYMAP_NR; m = parent(m)) {
		const struct keymap_bindings *b = &k->maps[m];

		for (size_t i = 0; i < b->nr; i++) {
			/* A key the keymap binds itself hides the generic binding. */
			if (b->b[i].req != req || (m != km && find_binding(&k->maps[km], b->b[i].key)))
				continue;
			if (n < max)
				out[n] = b->b[i].key;
			n++;
		}
	}
	return n;
}

/* --------------------------------------------------------------- names */

const char *
keys_help(enum request req)
{
	const struct req_entry *e = find_entry(req);

	if (!e)
		return "";
	if (!strncmp(e->help, LATER, strlen(LATER)))
		return e->help + strlen(LATER);
	return e->help;
}

bool
keys_is_later(enum request req)
{
	const struct req_entry *e = find_entry(req);

	return e && !strncmp(e->help, LATER, strlen(LATER));
}

void
keys_req_name(struct strbuf *out, enum request req)
{
	const struct req_entry *e = find_entry(req);

	if (!e) {
		strbuf_addstr(out, "none");
		return;
	}
	for (const char *s = e->id; *s; s++)
		strbuf_addch(out, *s == '_' ? '-' : *s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
}

bool
keys_req_find(const char *name, enum request *out)
{
	struct strbuf sb = STRBUF_INIT;
	bool found = false;

	if (!strcmp(name, "none")) {
		*out = REQ_NONE;
		return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(req_table) && !found; i++) {
		if (req_table[i].req == REQ_NONE)
			continue;
		strbuf_reset(&sb);
		keys_req_name(&sb, req_table[i].req);
		if (!strcmp(sb.buf, name)) {
			*out = req_table[i].req;
			found = true;
		}
	}
	strbuf_release(&sb);
	return found;
}

const char *
keys_map_name(enum keymap km)
{
	return keymap_table[km].name;
}

const char *
keys_map_help(enum keymap km)
{
	return keymap_table[km].help;
}

bool
keys_map_find(const char *name, enum keymap *out)
{
	for (size_t i = 0; i < KEYMAP_NR; i++) {
		if (!strcmp(keymap_table[i].name, name)) {
			*out = (enum keymap)i;
			return true;
		}
	}
	return false;
}

/*
 * Keys with names, each name once with every code it stands for: the
 * first code's name is what keys_name() writes for all of them.
 */
static const struct {
	const char *name, *utf8_name;
	int codes[3];
} key_names[] = {
	{ "Up", "\xe2\x86\x91", { KEY_UP } },
	{ "Down", "\xe2\x86\x93", { KEY_DOWN } },
	{ "Left", "\xe2\x86\x90", { KEY_LEFT } },
	{ "Right", "\xe2\x86\x92", { KEY_RIGHT } },
	{ "PgUp", NULL, { KEY_PPAGE } },
	{ "PgDn", NULL, { KEY_NPAGE } },
	{ "Home", NULL, { KEY_HOME } },
	{ "End", NULL, { KEY_END } },
	{ "Insert", NULL, { KEY_IC } },
	{ "Delete", NULL, { KEY_DC } },
	{ "Enter", NULL, { '\n', '\r', KEY_ENTER } },
	{ "Backspace", NULL, { KEY_BACKSPACE, 127, '\b' } },
	{ "Shift-Tab", NULL, { KEY_BTAB } },
	{ "Tab", NULL, { '\t' } },
	{ "Space", NULL, { ' ' } },
	{ "Esc", NULL, { KEYS_ESC } },
	{ "click", NULL, { KEYS_CLICK } },
	{ "double-click", NULL, { KEYS_DOUBLE_CLICK } },
	{ "wheel-up", NULL, { KEYS_WHEEL_UP } },
	{ "wheel-down", NULL, { KEYS_WHEEL_DOWN } },
};

/* Other spellings keys_parse() takes. */
static const struct {
	const char *alias, *name;
} key_aliases[] = {
	{ "PageUp", "PgUp" }, { "PageDown", "PgDn" }, { "Return", "Enter" },
	{ "Escape", "Esc" }, { "Del", "Delete" }, { "Ins", "Insert" },
	{ "BackTab", "Shift-Tab" }, { "ScrollBack", "PgUp" }, { "ScrollFwd", "PgDn" },
};

/* The most F keys a name can have. */
#define KEYS_MAX_F 24

void
keys_name(struct strbuf *out, int key, bool utf8)
{
	for (size_t i = 0; i < ARRAY_SIZE(key_names); i++) {
		for (size_t j = 0; j < ARRAY_SIZE(key_names[i].codes) && key_names[i].codes[j]; j++) {
			if (key_names[i].codes[j] != key)
				continue;
			strbuf_addstr(out, utf8 && key_names[i].utf8_name ? key_names[i].utf8_name
									  : key_names[i].name);
			return;
		}
	}
	if (key >= KEY_F(1) && key <= KEY_F(KEYS_MAX_F))
		strbuf_addf(out, "F%d", key - KEY_F(0));
	else if (key > 0 && key < 32)
		strbuf_addf(out, "Ctrl-%c", key + '@');
	else if (key > 32 && key < 127)
		strbuf_addch(out, key);
	else
		strbuf_addf(out, "key %d", key);
}

void
keys_config_name(struct strbuf *out, int key)
{
	if (key == '#')
		strbuf_addstr(out, "Hash");
	else
		keys_name(out, key, false);
}

size_t
keys_parse(const char *name, int *out, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	const char *s = name;
	size_t len = strlen(name), n = 0;
	int code = -1;

	/* tig's <Name> */
	if (len > 2 && s[0] == '<' && s[len - 1] == '>') {
		s++;
		len -= 2;
	}
	strbuf_add(&sb, s, len);
	s = sb.buf;
	for (size_t i = 0; i < ARRAY_SIZE(key_aliases); i++)
		if (!strcasecmp(s, key_aliases[i].alias))
			s = key_aliases[i].name;
	if (len == 1 && (unsigned char)s[0] > 32 && (unsigned char)s[0] < 127) {
		code = s[0];
	} else if (!strcasecmp(s, "Hash")) {
		code = '#';
	} else if ((len == 6 && !strncasecmp(s, "Ctrl-", 5)) || (len == 2 && s[0] == '^')) {
		char c = s[len - 1];

		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		if (c >= '@' && c <= '_')
			code = c - '@';
	} else if ((s[0] == 'F' || s[0] == 'f') && len >= 2 && len <= 3 && s[1] >= '1' &&
		   s[1] <= '9' && (len == 2 || (s[2] >= '0' && s[2] <= '9'))) {
		int f = atoi(s + 1);

		if (f >= 1 && f <= KEYS_MAX_F)
			code = KEY_F(f);
	} else {
		for (size_t i = 0; i < ARRAY_SIZE(key_names); i++) {
			if (strcasecmp(s, key_names[i].name))
				continue;
			for (size_t j = 0; j < ARRAY_SIZE(key_names[i].codes) &&
					   key_names[i].codes[j]; j++) {
				if (n < max)
					out[n] = key_names[i].codes[j];
				n++;
			}
			break;
		}
	}
	if (code > 0) {
		if (max)
			out[0] = code;
		n = 1;
	}
	strbuf_release(&sb);
	return n < max ? n : max;
}

/* ---------------------------------------------------------------- help */

/* Append the names of keys[0..nr) to out, each name once, space apart. */
static void
add_key_names(struct strbuf *out, const int *keys, size_t nr, bool utf8)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	size_t start = out->len;

	for (size_t i = 0; i < nr; i++) {
		bool same = false;

		strbuf_reset(&a);
		keys_name(&a, keys[i], utf8);
		/* Enter is '\n', '\r' and KEY_ENTER: one name. */
		for (size_t j = 0; j < i && !same; j++) {
			strbuf_reset(&b);
			keys_name(&b, keys[j], utf8);
			same = !strcmp(a.buf, b.buf);
		}
		if (same)
			continue;
		if (out->len > start)
			strbuf_addch(out, ' ');
		strbuf_add(out, a.buf, a.len);
	}
	strbuf_release(&a);
	strbuf_release(&b);
}

/* The keys of req in km, as the help shows them; "(no key)" for none. */
static void
req_keys(struct strbuf *out, const struct keys *k, enum keymap km, enum request req, bool utf8)
{
	int keys[16];
	size_t n = keys_of(k, km, req, keys, ARRAY_SIZE(keys));

	if (!n)
		strbuf_addstr(out, "(no key)");
	add_key_names(out, keys, n < ARRAY_SIZE(keys) ? n : ARRAY_SIZE(keys), utf8);
}

/* Columns of a UTF-8 string of arrows and ASCII. */
static size_t
columns(const struct strbuf *sb)
{
	size_t cols = 0;

	for (size_t j = 0; j < sb->len; j++)
		cols += ((unsigned char)sb->buf[j] & 0xc0) != 0x80;
	return cols;
}

/* One help line: the keys, padded to col, and the help. */
static void
help_line(struct strbuf *out, const struct strbuf *keys, size_t col, enum request req)
{
	size_t cols = columns(keys);

	strbuf_addf(out, "  %s", keys->buf);
	strbuf_addchars(out, ' ', col > cols ? col - cols + 2 : 2);
	strbuf_addf(out, "%s%s\n", keys_is_later(req) ? "(later version) " : "",
		    keys_help(req));
}

/* The keymap a request's help lines are read in: the picker's, the source's, or km. */
static enum keymap
help_map(enum request req, enum keymap km)
{
	return keys_is_picker(req)	  ? KEYMAP_PICKER
	       : keys_is_source(req)	  ? KEYMAP_SOURCE
	       : keys_is_transform(req) ? KEYMAP_TRANSFORM
				  : km;
}

/*
 * The bindings a page or the source page makes itself, beyond the
 * generic ones: a heading and one line per request, or nothing.
 */
static void
own_bindings(struct strbuf *out, const struct keys *k, enum keymap km, size_t col, bool utf8)
{
	const struct keymap_bindings *m = &k->maps[km];
	struct strbuf keys = STRBUF_INIT;
	bool any = false;

	for (size_t i = 0; i < ARRAY_SIZE(req_table); i++) {
		enum request req = req_table[i].req;
		bool bound = false;

		for (size_t j = 0; j < m->nr && !bound; j++)
			bound = m->b[j].req == req && req != REQ_NONE;
		/* The source view's own requests have their group above. */
		if (!bound || keys_is_source(req))
			continue;
		if (!any)
			strbuf_addf(out, "\n# Keys of %s\n", keys_map_help(km));
		any = true;
		strbuf_reset(&keys);
		req_keys(&keys, k, km, req, utf8);
		help_line(out, &keys, col, req);
	}
	strbuf_release(&keys);
}

void
keys_help_text(struct strbuf *out, const struct keys *k, enum keymap km, bool utf8)
{
	struct strbuf keys = STRBUF_INIT;
	size_t col = 0;

	/*
	 * One column for the keys, as wide as the widest list of keys of the
	 * panes; the picker's lists may stick out of it.
	 */
	for (size_t i = 0; i < ARRAY_SIZE(req_table); i++) {
		if (req_table[i].req == REQ_NONE || keys_is_picker(req_table[i].req))
			continue;
		strbuf_reset(&keys);
		req_keys(&keys, k, km, req_table[i].req, false);
		if (keys.len > col)
			col = keys.len;
	}
	for (size_t i = 0; i < ARRAY_SIZE(req_table); i++) {
		const struct req_entry *e = &req_table[i];

		if (e->req == REQ_NONE) {
			strbuf_addf(out, "%s# %s\n", i ? "\n" : "", e->help);
			continue;
		}
		strbuf_reset(&keys);
		req_keys(&keys, k, help_map(e->req, km), e->req, utf8);
		help_line(out, &keys, col, e->req);
	}
	if (km != KEYMAP_PAGE)
		own_bindings(out, k, KEYMAP_PAGE, col, utf8);
	if (km != KEYMAP_SOURCE)
		own_bindings(out, k, KEYMAP_SOURCE, col, utf8);
	strbuf_release(&keys);
}

void
keys_first_name(struct strbuf *out, const struct keys *k, enum keymap km, enum request req,
		bool utf8)
{
	int key;

	if (keys_of(k, km, req, &key, 1))
		keys_name(out, key, utf8);
	else
		strbuf_addstr(out, "(no key)");
}

void
keys_hints(struct strbuf *out, const struct keys *k, enum keymap km,
	   const struct key_hint *hints, size_t nr, bool utf8)
{
	size_t begin = out->len;

	for (size_t i = 0; i < nr; i++) {
		size_t start = out->len;
		bool any = false;

		if (start > begin)
			strbuf_addstr(out, "  ");
		for (size_t j = 0; j < ARRAY_SIZE(hints[i].req) && hints[i].req[j]; j++) {
			int key;

			if (!keys_of(k, km, hints[i].req[j], &key, 1))
				continue;
			if (any)
				strbuf_addch(out, ' ');
			keys_name(out, key, utf8);
			any = true;
		}
		if (any)
			strbuf_addf(out, " %s", hints[i].label);
		else
			strbuf_setlen(out, start);
	}
}
