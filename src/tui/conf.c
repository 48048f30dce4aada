#include "config.h"

#include "tflame/conf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

/* A config file is a few kilobytes; past this it is the wrong file. */
#define CONF_MAX_BYTES (1 << 20)
/* The most words a line takes: color AREA FG BG and a few attributes. */
#define CONF_MAX_WORDS 12

/* The UI elements' names: DISPLAY_COLORS' in lower case, '-' for '_'. */
#define CONF_AREA_(name, f256, b256, f8, b8, a, m) { #name, f256, b256, a },
static const struct {
	const char *id;
	short fg, bg; /* the 256-colour defaults: what --dump-config writes */
	attr_t attr;
} areas[DISPLAY_NR_COLORS] = {
	DISPLAY_COLORS(CONF_AREA_)
};
#undef CONF_AREA_

static const char *const color_names[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

static const struct {
	const char *name;
	attr_t attr;
} attr_names[] = {
	{ "normal", A_NORMAL }, { "bold", A_BOLD }, { "dim", A_DIM },
	{ "reverse", A_REVERSE }, { "underline", A_UNDERLINE }, { "standout", A_STANDOUT },
	{ "blink", A_BLINK },
#ifdef A_ITALIC
	{ "italic", A_ITALIC },
#endif
};

static const char *const color_modes[COLOR_NR_MODES] = {
	[COLOR_BY_FUNCTION] = "function",
	[COLOR_BY_MODULE] = "module",
	[COLOR_BY_KIND] = "kind",
};

void
conf_init(struct conf *c)
{
	memset(c, 0, sizeof(*c));
	keys_init(&c->keys);
	c->color_mode = COLOR_BY_FUNCTION;
	c->weight = WEIGHT_DEFAULT;
	c->symbols = true;
	c->demangle = true;
}

void
conf_release(struct conf *c)
{
	keys_release(&c->keys);
	for (size_t i = 0; i < c->nr_warnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	free(c->seen);
	memset(c, 0, sizeof(*c));
}

/* ------------------------------------------------------------- warnings */

struct parse {
	struct conf *c;
	const char *name;   /* the file, for messages */
	unsigned long line;
	size_t warnings;
};

static void __attribute__((format(printf, 2, 3)))
warn(struct parse *p, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	text_escape_str(&sb, p->name);
	if (p->line)
		strbuf_addf(&sb, ":%lu", p->line);
	strbuf_addstr(&sb, ": ");
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(p->c->warnings, p->c->nr_warnings, p->c->alloc_warnings);
	p->c->warnings[p->c->nr_warnings++] = strbuf_detach(&sb, NULL);
	p->warnings++;
}

/* A word from the file, quoted for a message and escaped. */
static const char *
quoted(struct strbuf *sb, const char *word)
{
	strbuf_reset(sb);
	strbuf_addch(sb, '\'');
	text_escape_str(sb, word);
	strbuf_addch(sb, '\'');
	return sb->buf;
}

/* The names in a list, for "(valid: ...)". */
static void
list_keymaps(struct strbuf *out)
{
	for (size_t i = 0; i < KEYMAP_NR; i++)
		strbuf_addf(out, "%s%s", i ? ", " : "", keys_map_name((enum keymap)i));
}

static void
area_name(struct strbuf *out, size_t i)
{
	for (const char *s = areas[i].id; *s; s++)
		strbuf_addch(out, *s == '_' ? '-' : *s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
}

/* ----------------------------------------------------------------- bind */

static void
cmd_bind(struct parse *p, char **w, size_t nr)
{
	struct strbuf q = STRBUF_INIT, names = STRBUF_INIT;
	int codes[4];
	size_t nr_codes;
	enum keymap km;
	enum request req;
	unsigned long dup = 0;

	if (nr != 4) {
		warn(p, "bind takes a keymap, a key and an action: bind generic j move-down");
		goto out;
	}
	if (!keys_map_find(w[1], &km)) {
		list_keymaps(&names);
		warn(p, "unknown keymap %s (valid: %s)", quoted(&q, w[1]), names.buf);
		goto out;
	}
	nr_codes = keys_parse(w[2], codes, ARRAY_SIZE(codes));
	if (!nr_codes) {
		warn(p, "unknown key %s (a character, or a name such as Enter, Ctrl-X, F5, Hash)",
		     quoted(&q, w[2]));
		goto out;
	}
	if (!keys_req_find(w[3], &req)) {
		warn(p, "unknown action %s (tflame --dump-config lists them)", quoted(&q, w[3]));
		goto out;
	}
	if (!keys_map_has(km, req)) {
		for (size_t i = 0; i < KEYMAP_NR; i++)
			if (keys_map_has((enum keymap)i, req))
				strbuf_addf(&names, "%s%s", names.len ? ", " : "",
					    keys_map_name((enum keymap)i));
		warn(p, "the %s keymap has no action %s (it works in: %s)", keys_map_name(km),
		     quoted(&q, w[3]), names.buf);
		goto out;
	}
	for (size_t i = 0; i < nr_codes; i++) {
		for (size_t j = 0; j < p->c->nr_seen; j++)
			if (p->c->seen[j].km == km && p->c->seen[j].key == codes[i])
				dup = p->c->seen[j].line;
		ALLOC_GROW(p->c->seen, p->c->nr_seen, p->c->alloc_seen);
		p->c->seen[p->c->nr_seen++] = (struct conf_seen){ km, codes[i], p->line };
		keys_bind(&p->c->keys, km, codes[i], req);
	}
	if (dup) {
		strbuf_reset(&names);
		keys_config_name(&names, codes[0]);
		warn(p, "key %s is bound twice in keymap %s (line %lu too); this line wins",
		     names.buf, keys_map_name(km), dup);
	}
out:
	strbuf_release(&q);
	strbuf_release(&names);
}

/* ---------------------------------------------------------------- color */

/* A colour: a name, default, or 0-255; -2 if it is none of them. */
static short
parse_color(const char *s)
{
	char *end;
	long n;

	if (!strcmp(s, "default"))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(color_names); i++)
		if (!strcmp(s, color_names[i]))
			return (short)i;
	if (!strncmp(s, "color", 5))
		s += 5;
	if (*s < '0' || *s > '9')
		return -2;
	errno = 0;
	n = strtol(s, &end, 10);
	return errno || *end || n > 255 ? -2 : (short)n;
}

static void
cmd_color(struct parse *p, char **w, size_t nr)
{
	struct strbuf q = STRBUF_INIT, name = STRBUF_INIT;
	struct display_custom cu = { .set = true };
	size_t area = DISPLAY_NR_COLORS;

	if (nr < 4) {
		warn(p, "color takes an area, a foreground, a background and attributes: "
			"color status white default bold");
		goto out;
	}
	for (size_t i = 0; i < DISPLAY_NR_COLORS && area == DISPLAY_NR_COLORS; i++) {
		strbuf_reset(&name);
		area_name(&name, i);
		if (!strcmp(name.buf, w[1]))
			area = i;
	}
	if (area == DISPLAY_NR_COLORS) {
		strbuf_reset(&name);
		for (size_t i = 0; i < DISPLAY_NR_COLORS; i++) {
			strbuf_addstr(&name, i ? ", " : "");
			area_name(&name, i);
		}
		warn(p, "unknown area %s (valid: %s)", quoted(&q, w[1]), name.buf);
		goto out;
	}
	for (size_t i = 2; i < 4; i++) {
		short col = parse_color(w[i]);

		if (col == -2) {
			warn(p, "unknown colour %s (a name such as red, default, or 0-255)",
			     quoted(&q, w[i]));
			goto out;
		}
		*(i == 2 ? &cu.fg : &cu.bg) = col;
	}
	for (size_t i = 4; i < nr; i++) {
		size_t a = 0;

		while (a < ARRAY_SIZE(attr_names) && strcmp(attr_names[a].name, w[i]))
			a++;
		if (a == ARRAY_SIZE(attr_names)) {
			warn(p, "unknown attribute %s (bold, dim, reverse, underline...)",
			     quoted(&q, w[i]));
			goto out;
		}
		cu.attr |= attr_names[a].attr;
	}
	p->c->colors[area] = cu;
out:
	strbuf_release(&q);
	strbuf_release(&name);
}

/* ------------------------------------------------------------------ set */

/* The index of value in names[0..nr), or -1 after a warning. */
static int
one_of(struct parse *p, const char *setting, const char *value, const char *const *names,
       size_t nr)
{
	struct strbuf q = STRBUF_INIT, valid = STRBUF_INIT;

	for (size_t i = 0; i < nr; i++)
		if (!strcmp(value, names[i]))
			return (int)i;
	for (size_t i = 0; i < nr; i++)
		strbuf_addf(&valid, "%s%s", i ? (i + 1 == nr ? " or " : ", ") : "", names[i]);
	warn(p, "%s takes %s, not %s", setting, valid.buf, quoted(&q, value));
	strbuf_release(&q);
	strbuf_release(&valid);
	return -1;
}

static void
cmd_set(struct parse *p, char **w, size_t nr)
{
	static const char *const yes_no[] = { "no", "yes" };
	static const char *const orientations[] = { "icicle", "flame" };
	static const char *const weights[] = { "period", "samples" };
	struct strbuf q = STRBUF_INIT;
	int i;

	if (nr != 4 || strcmp(w[2], "=")) {
		warn(p, "set takes a name, '=' and a value: set orientation = flame");
		goto out;
	}
	if (!strcmp(w[1], "color-mode")) {
		if ((i = one_of(p, w[1], w[3], color_modes, ARRAY_SIZE(color_modes))) >= 0)
			p->c->color_mode = (enum color_mode)i;
	} else if (!strcmp(w[1], "orientation")) {
		if ((i = one_of(p, w[1], w[3], orientations, ARRAY_SIZE(orientations))) >= 0)
			p->c->flip = i == 1;
	} else if (!strcmp(w[1], "weight")) {
		if ((i = one_of(p, w[1], w[3], weights, ARRAY_SIZE(weights))) >= 0)
			p->c->weight = i ? WEIGHT_SAMPLES : WEIGHT_DEFAULT;
	} else if (!strcmp(w[1], "symbols")) {
		if ((i = one_of(p, w[1], w[3], yes_no, ARRAY_SIZE(yes_no))) >= 0)
			p->c->symbols = i;
	} else if (!strcmp(w[1], "demangle")) {
		if ((i = one_of(p, w[1], w[3], yes_no, ARRAY_SIZE(yes_no))) >= 0)
			p->c->demangle = i;
	} else {
		warn(p, "unknown setting %s (valid: color-mode, orientation, weight, symbols, "
			"demangle)", quoted(&q, w[1]));
	}
out:
	strbuf_release(&q);
}

/* ---------------------------------------------------------------- lines */

/*
 * Split a line into words: blanks apart, '#' at the start of a word to
 * the end of the line, '...' or "..." around a word with blanks or '#'.
 * Returns the number of words (at most max, the rest dropped), or -1
 * after a warning.
 */
static int
split(struct parse *p, const char *s, size_t len, struct strbuf *words, size_t max)
{
	size_t i = 0, n = 0;

	while (i < len) {
		struct strbuf *w = n < max ? &words[n] : NULL;

		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i >= len || s[i] == '#')
			break;
		if (w)
			strbuf_reset(w);
		if (s[i] == '"' || s[i] == '\'') {
			const char *end = memchr(s + i + 1, s[i], len - i - 1);

			if (!end) {
				warn(p, "no closing %c", s[i]);
				return -1;
			}
			if (w)
				strbuf_add(w, s + i + 1, (size_t)(end - s - i - 1));
			i = (size_t)(end - s) + 1;
		} else {
			size_t start = i;

			while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
				i++;
			if (w)
				strbuf_add(w, s + start, i - start);
		}
		n++;
	}
	return (int)n;
}

static void
parse_line(struct parse *p, const char *s, size_t len)
{
	struct strbuf words[CONF_MAX_WORDS], q = STRBUF_INIT;
	char *w[CONF_MAX_WORDS];
	int nr;

	for (size_t i = 0; i < CONF_MAX_WORDS; i++)
		strbuf_init(&words[i], 0);
	if (memchr(s, '\0', len)) {
		warn(p, "a NUL byte: not a text file");
		goto out;
	}
	nr = split(p, s, len, words, CONF_MAX_WORDS);
	if (nr <= 0)
		goto out;
	if (nr > CONF_MAX_WORDS) {
		warn(p, "too many words (%d)", nr);
		goto out;
	}
	for (int i = 0; i < nr; i++)
		w[i] = words[i].buf;
	if (!strcmp(w[0], "bind"))
		cmd_bind(p, w, (size_t)nr);
	else if (!strcmp(w[0], "color"))
		cmd_color(p, w, (size_t)nr);
	else if (!strcmp(w[0], "set"))
		cmd_set(p, w, (size_t)nr);
	else
		warn(p, "unknown command %s (valid: bind, color, set)", quoted(&q, w[0]));
out:
	for (size_t i = 0; i < CONF_MAX_WORDS; i++)
		strbuf_release(&words[i]);
	strbuf_release(&q);
}

size_t
conf_parse(struct conf *c, const char *name, const char *text, size_t len)
{
	struct parse p = { c, name, 0, 0 };
	const char *s = text, *end = text + len;

	c->nr_seen = 0;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		p.line++;
		parse_line(&p, s, n);
		s += n + 1;
	}
	return p.warnings;
}

size_t
conf_load_file(struct conf *c, const char *path, bool must_exist)
{
	struct parse p = { c, path, 0, 0 };
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	size_t n, warnings;
	FILE *f = fopen(path, "r");

	if (!f) {
		if (must_exist || errno != ENOENT)
			warn(&p, "cannot open the config file: %s", strerror(errno));
		return p.warnings;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && sb.len <= CONF_MAX_BYTES)
		strbuf_add(&sb, buf, n);
	if (ferror(f))
		warn(&p, "cannot read the config file: %s", strerror(errno));
	else if (sb.len > CONF_MAX_BYTES)
		warn(&p, "over %d bytes: not a config file", CONF_MAX_BYTES);
	fclose(f);
	if (p.warnings) {
		strbuf_release(&sb);
		return p.warnings;
	}
	warnings = conf_parse(c, path, sb.buf, sb.len);
	strbuf_release(&sb);
	return warnings;
}

size_t
conf_load_user(struct conf *c)
{
	const char *env = getenv("TFLAME_CONFIG"), *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	struct strbuf path = STRBUF_INIT;
	size_t n;

	if (env)
		return *env ? conf_load_file(c, env, true) : 0;
	if (xdg && *xdg == '/')
		strbuf_addf(&path, "%s/tflame/config", xdg);
	else if (home && *home)
		strbuf_addf(&path, "%s/.config/tflame/config", home);
	else
		return 0;
	n = conf_load_file(c, path.buf, false);
	strbuf_release(&path);
	return n;
}

/* ----------------------------------------------------------------- dump */

static void
dump_color(struct strbuf *out, short c)
{
	if (c < 0)
		strbuf_addstr(out, "default");
	else
		strbuf_addf(out, "%d", c);
}

void
conf_dump_defaults(struct strbuf *out)
{
	struct conf c;

	conf_init(&c);
	strbuf_addstr(out,
		      "# tflame's config file: ~/.config/tflame/config, or $XDG_CONFIG_HOME/tflame/config.\n"
		      "# These are the defaults (tflame --dump-config); see CONFIGURATION in tflame(1).\n"
		      "\n"
		      "# set NAME = VALUE: the explorer's defaults; its options override them.\n");
	strbuf_addf(out, "set color-mode = %s\n", color_modes[c.color_mode]);
	strbuf_addf(out, "set orientation = %s\n", c.flip ? "flame" : "icicle");
	strbuf_addf(out, "set weight = %s\n", c.weight == WEIGHT_SAMPLES ? "samples" : "period");
	strbuf_addf(out, "set symbols = %s\n", c.symbols ? "yes" : "no");
	strbuf_addf(out, "set demangle = %s\n", c.demangle ? "yes" : "no");
	strbuf_addstr(out,
		      "\n"
		      "# color AREA FG BG [ATTR...]: FG and BG are default, black, red, green,\n"
		      "# yellow, blue, magenta, cyan, white or 0-255; ATTR is bold, dim, reverse,\n"
		      "# underline, standout or blink. On an 8-colour terminal an area with a\n"
		      "# colour above 7 keeps its 8-colour default.\n");
	for (size_t i = 0; i < DISPLAY_NR_COLORS; i++) {
		strbuf_addstr(out, "color ");
		area_name(out, i);
		strbuf_addch(out, ' ');
		dump_color(out, areas[i].fg);
		strbuf_addch(out, ' ');
		dump_color(out, areas[i].bg);
		for (size_t a = 1; a < ARRAY_SIZE(attr_names); a++)
			if (areas[i].attr & attr_names[a].attr)
				strbuf_addf(out, " %s", attr_names[a].name);
		strbuf_addch(out, '\n');
	}
	strbuf_addstr(out,
		      "\n"
		      "# bind KEYMAP KEY ACTION: a key asks for ACTION (none: nothing) in KEYMAP.\n"
		      "# Keys are looked up in the keymap of what is on screen, then in generic\n"
		      "# (but for the picker's). The search prompt's and the picker filter's\n"
		      "# editing keys, and Enter and Esc in the prompt, are fixed.\n");
	for (size_t km = 0; km < KEYMAP_NR; km++) {
		const struct keymap_bindings *m = &c.keys.maps[km];
		struct strbuf name = STRBUF_INIT, last = STRBUF_INIT;

		strbuf_addf(out, "\n# %s: %s\n", keys_map_name((enum keymap)km),
			    keys_map_help((enum keymap)km));
		for (size_t i = 0; i < m->nr; i++) {
			strbuf_reset(&name);
			keys_config_name(&name, m->b[i].key);
			/* Enter is '\n', '\r' and KEY_ENTER, one after the other. */
			if (!strcmp(name.buf, last.buf))
				continue;
			strbuf_addf(out, "bind %s %s ", keys_map_name((enum keymap)km), name.buf);
			keys_req_name(out, m->b[i].req);
			strbuf_addch(out, '\n');
			strbuf_reset(&last);
			strbuf_addstr(&last, name.buf);
		}
		strbuf_release(&name);
		strbuf_release(&last);
	}
	conf_release(&c);
}
