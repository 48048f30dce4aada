#include "config.h"

#include "tflame/keys.h"

#include <string.h>

#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/* Up to this many default keys per request; the table is checked below. */
#define KEYS_PER_REQ 4

struct req_entry {
	enum request req; /* REQ_NONE for a heading */
	const char *help; /* the help line, or the heading */
	int keys[KEYS_PER_REQ + 1]; /* 0-terminated */
};

#define KEYS_ENTRY_GROUP_(title) { REQ_NONE, title, { 0 } },
#define KEYS_ENTRY_REQ_(id, help_text, ...) { REQ_##id, help_text, { __VA_ARGS__, 0 } },
static const struct req_entry req_table[] = {
	REQ_INFO(KEYS_ENTRY_GROUP_, KEYS_ENTRY_REQ_)
};
#undef KEYS_ENTRY_GROUP_
#undef KEYS_ENTRY_REQ_

static const struct req_entry *
find_entry(enum request req)
{
	for (size_t i = 0; i < ARRAY_SIZE(req_table); i++)
		if (req_table[i].req == req && req != REQ_NONE)
			return &req_table[i];
	return NULL;
}

enum request
keys_request(int key)
{
	/*
	 * A linear scan of ~50 entries per key press costs nothing next to a
	 * redraw, and leaves no table to build or keep in step.
	 */
	if (key <= 0 || key >= KEYS_LIMIT)
		return REQ_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(req_table); i++)
		for (const int *k = req_table[i].keys; *k; k++)
			if (*k == key && req_table[i].req != REQ_NONE)
				return req_table[i].req;
	return REQ_NONE;
}

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
keys_name(struct strbuf *out, int key, bool utf8)
{
	static const struct {
		int key;
		const char *name, *utf8_name;
	} names[] = {
		{ KEY_UP, "Up", "\xe2\x86\x91" },
		{ KEY_DOWN, "Down", "\xe2\x86\x93" },
		{ KEY_LEFT, "Left", "\xe2\x86\x90" },
		{ KEY_RIGHT, "Right", "\xe2\x86\x92" },
		{ KEY_PPAGE, "PgUp", NULL },
		{ KEY_NPAGE, "PgDn", NULL },
		{ KEY_HOME, "Home", NULL },
		{ KEY_END, "End", NULL },
		{ KEY_ENTER, "Enter", NULL },
		{ KEY_BACKSPACE, "Backspace", NULL },
		{ KEY_BTAB, "Shift-Tab", NULL },
		{ KEY_F(1), "F1", NULL },
		{ '\n', "Enter", NULL },
		{ '\t', "Tab", NULL },
		{ ' ', "Space", NULL },
		{ KEYS_ESC, "Esc", NULL },
		{ 127, "Backspace", NULL },
		{ '\b', "Backspace", NULL },
		{ KEYS_CLICK, "click", NULL },
		{ KEYS_DOUBLE_CLICK, "double-click", NULL },
		{ KEYS_WHEEL_UP, "wheel up", NULL },
		{ KEYS_WHEEL_DOWN, "wheel down", NULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (names[i].key == key) {
			strbuf_addstr(out, utf8 && names[i].utf8_name ? names[i].utf8_name
								     : names[i].name);
			return;
		}
	}
	if (key > 0 && key < 32)
		strbuf_addf(out, "Ctrl-%c", key + '@');
	else if (key > 32 && key < 127)
		strbuf_addch(out, key);
	else
		strbuf_addf(out, "key %d", key);
}

/* True if an earlier key of e has the same name as e->keys[i]. */
static bool
same_name_before(const struct req_entry *e, size_t i)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	bool same = false;

	keys_name(&a, e->keys[i], false);
	for (size_t j = 0; j < i && !same; j++) {
		strbuf_reset(&b);
		keys_name(&b, e->keys[j], false);
		same = !strcmp(a.buf, b.buf);
	}
	strbuf_release(&a);
	strbuf_release(&b);
	return same;
}

/*
 * The keys of e as one string, each name once (Enter is both '\n' and
 * KEY_ENTER), leaving out '\r', an Enter no one needs to read about.
 */
static void
entry_keys(struct strbuf *out, const struct req_entry *e, bool utf8)
{
	size_t start = out->len;

	for (size_t i = 0; e->keys[i]; i++) {
		if (e->keys[i] == '\r' || same_name_before(e, i))
			continue;
		if (out->len > start)
			strbuf_addch(out, ' ');
		keys_name(out, e->keys[i], utf8);
	}
}

void
keys_help_text(struct strbuf *out, bool utf8)
{
	struct strbuf keys = STRBUF_INIT;
	size_t col = 0;

	/* One column for the keys, as wide as the widest list of keys. */
	for (size_t i = 0; i < ARRAY_SIZE(req_table); i++) {
		if (req_table[i].req == REQ_NONE)
			continue;
		strbuf_reset(&keys);
		entry_keys(&keys, &req_table[i], false);
		if (keys.len > col)
			col = keys.len;
	}
	for (size_t i = 0; i < ARRAY_SIZE(req_table); i++) {
		const struct req_entry *e = &req_table[i];
		size_t cols;

		if (e->req == REQ_NONE) {
			strbuf_addf(out, "%s# %s\n", i ? "\n" : "", e->help);
			continue;
		}
		strbuf_reset(&keys);
		entry_keys(&keys, e, utf8);
		/* Arrows are one column but three bytes. */
		cols = 0;
		for (size_t j = 0; j < keys.len; j++)
			cols += ((unsigned char)keys.buf[j] & 0xc0) != 0x80;
		strbuf_addf(out, "  %s", keys.buf);
		strbuf_addchars(out, ' ', col > cols ? col - cols + 2 : 2);
		strbuf_addf(out, "%s%s\n", keys_is_later(e->req) ? "(later version) " : "",
			    keys_help(e->req));
	}
	strbuf_release(&keys);
}
