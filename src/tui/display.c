#include "config.h"

#include "tflame/display.h"

#include <fcntl.h>
#include <limits.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tflame/error.h"
#include "tflame/palette.h"
#include "tflame/render.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

struct ui_color {
	short fg256, bg256, fg8, bg8;
	attr_t attr, mono;
};

#define DISPLAY_UI_(name, f256, b256, f8, b8, a, m) { f256, b256, f8, b8, a, m },
static const struct ui_color ui_colors[] = {
	DISPLAY_COLORS(DISPLAY_UI_)
};
#undef DISPLAY_UI_

/* With 8 colours, shades become text/background combinations. */
struct pair8 {
	short fg, bg;
};
static const struct pair8 hot8[] = {
	{ COLOR_BLACK, COLOR_RED }, { COLOR_BLACK, COLOR_YELLOW },
	{ COLOR_WHITE, COLOR_RED }, { COLOR_RED, COLOR_YELLOW },
};
static const struct pair8 user8[] = { { COLOR_BLACK, COLOR_RED }, { COLOR_WHITE, COLOR_RED } };
static const struct pair8 kernel8[] = {
	{ COLOR_BLACK, COLOR_YELLOW }, { COLOR_RED, COLOR_YELLOW },
};
static const struct pair8 jit8[] = { { COLOR_BLACK, COLOR_GREEN }, { COLOR_WHITE, COLOR_GREEN } };
static const struct pair8 inlined8[] = { { COLOR_BLACK, COLOR_CYAN }, { COLOR_WHITE, COLOR_CYAN } };

/* The 256-colour shades are the core's (palette.h): an SVG export shares them. */
static const struct {
	const struct pair8 *c8;
	unsigned n8;
} families[FLAME_NR_FAMILIES] = {
	[FLAME_HOT] = { hot8, ARRAY_SIZE(hot8) },
	[FLAME_USER] = { user8, ARRAY_SIZE(user8) },
	[FLAME_KERNEL] = { kernel8, ARRAY_SIZE(kernel8) },
	[FLAME_JIT] = { jit8, ARRAY_SIZE(jit8) },
	[FLAME_INLINED] = { inlined8, ARRAY_SIZE(inlined8) },
};

/* How many shades family has with colors colours. */
static unsigned
family_shades(enum flame_family f, int colors)
{
	unsigned n;

	if (colors >= 256) {
		palette_shades(f, &n);
		return n;
	}
	return families[f].n8;
}

/* Pair numbers: the UI's first, then each family's shades in turn. */
static short
family_base(enum flame_family f, int colors)
{
	short base = DISPLAY_NR_COLORS + 1;

	for (int i = 0; i < (int)f; i++)
		base += (short)family_shades((enum flame_family)i, colors);
	return base;
}

static void
init_colors(struct display *d)
{
	const char *no_color = getenv("NO_COLOR");

	d->colors = 0;
	/* no-color.org: present and not empty means no colour. */
	if ((no_color && *no_color) || !has_colors() || start_color() == ERR)
		return;
	use_default_colors();
	if (COLORS >= 256 && COLOR_PAIRS >= 128)
		d->colors = 256;
	else if (COLORS >= 8 && COLOR_PAIRS >= 64)
		d->colors = 8;
	else
		return;

	for (int i = 0; i < DISPLAY_NR_COLORS; i++) {
		struct ink ink = display_ui_ink(d, (enum display_color)i);

		init_pair((short)(i + 1), ink.fg, ink.bg);
	}
	for (int f = 0; f < FLAME_NR_FAMILIES; f++) {
		short base = family_base((enum flame_family)f, d->colors);

		if (d->colors == 256) {
			unsigned n;
			const short *c256 = palette_shades((enum flame_family)f, &n);

			for (unsigned i = 0; i < n; i++)
				init_pair((short)(base + i), 16, c256[i]);
		} else {
			for (unsigned i = 0; i < families[f].n8; i++)
				init_pair((short)(base + i), families[f].c8[i].fg,
					  families[f].c8[i].bg);
		}
	}
}

/*
 * Colour pairs for inks, made as they are first needed: a cell two boxes
 * share needs one for its two colours, and there are too many
 * combinations to make them all up front. Pair numbers past 255 do not fit
 * in an attr_t, so they go to attr_set() as its own argument.
 */
#define INK_PAIRS 4096

static struct ink_pair {
	short fg, bg, pair; /* pair 0: a free slot */
} ink_pairs[INK_PAIRS];
static int next_ink_pair;
static int ink_colors; /* the display's colours, which say how many pairs init_colors() made */

static void
ink_pairs_reset(void)
{
	memset(ink_pairs, 0, sizeof(ink_pairs));
	next_ink_pair = 0;
}

/* The pair for fg on bg, or 0 when the terminal has no more. */
static short
ink_pair(short fg, short bg)
{
	unsigned h = ((unsigned)(fg + 1) * 269u + (unsigned)(bg + 1)) % INK_PAIRS;

	/*
	 * Past the pairs init_colors() made, which are fewer with 8 colours:
	 * counting the 256 colours' there would leave an 8-colour terminal
	 * (64 pairs) none for the boxes.
	 */
	if (!next_ink_pair)
		next_ink_pair = family_base(FLAME_NR_FAMILIES, ink_colors);
	for (unsigned n = 0; n < INK_PAIRS; n++, h = (h + 1) % INK_PAIRS) {
		struct ink_pair *p = &ink_pairs[h];

		if (p->pair && p->fg == fg && p->bg == bg)
			return p->pair;
		if (p->pair)
			continue;
		if (next_ink_pair >= COLOR_PAIRS || next_ink_pair > SHRT_MAX ||
		    init_pair((short)next_ink_pair, fg, bg) == ERR)
			return 0;
		*p = (struct ink_pair){ fg, bg, (short)next_ink_pair++ };
		return p->pair;
	}
	return 0;
}

bool
display_usable(bool stdin_busy, const char **why)
{
	int fd;

	if (!isatty(STDOUT_FILENO)) {
		*why = "standard output is not a terminal";
		return false;
	}
	if (!stdin_busy) {
		if (isatty(STDIN_FILENO))
			return true;
		*why = "standard input is not a terminal";
		return false;
	}
	/* The profile comes down stdin: keys come from the terminal itself. */
	fd = open("/dev/tty", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = "the profile is on standard input, and there is no terminal for keys";
		return false;
	}
	close(fd);
	return true;
}

/*
 * die()'s hook: whatever state the program is in, give the shell back its
 * terminal. endwin() is harmless before curses starts or after it ended.
 */
/*
 * Motion reports while a button is down (xterm's mode 1002), for drags:
 * curses asks for presses and releases only, and leaves this on for the
 * shell unless told.
 */
static void
mouse_motion(const struct display *d, bool on)
{
	if (!d->mouse)
		return;
	/* Curses writes to stdout too, through buffers of its own: ours goes out now. */
	fputs(on ? "\033[?1002h" : "\033[?1002l", stdout);
	fflush(stdout);
}

static void
display_die_hook(void)
{
	if (!isendwin()) {
		fputs("\033[?1002l", stdout);
		endwin();
	}
}

int
display_open(struct display *d, bool stdin_busy, struct tf_error *err)
{
	const struct display_custom *custom = d->custom;
	FILE *in = stdin;
	const char *term = getenv("TERM");

	*d = (struct display){ .custom = custom };
	if (!term || !*term)
		return tf_error_set(err, "TERM is not set: cannot draw on this terminal");
	if (stdin_busy) {
		d->tty = fopen("/dev/tty", "re");
		if (!d->tty)
			return tf_error_set(err, "cannot open /dev/tty to read keys");
		in = d->tty;
	}
	if (display_terminal_check(term, err) ||
	    !(d->screen = newterm(NULL, stdout, in))) {
		if (d->tty)
			fclose(d->tty);
		d->tty = NULL;
		if (!err->msg)
			tf_error_set(err, "cannot use terminal type '%s'", term);
		return -1;
	}
	set_term(d->screen);
	d->active = true;
	set_die_hook(display_die_hook);

	/* Ctrl-C and Ctrl-Z arrive as keys: quitting restores the terminal. */
	raw();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	/*
	 * Esc zooms out: wait only long enough to tell it from an arrow key,
	 * allowing for an arrow's bytes to straggle in over SSH.
	 */
	set_escdelay(50);
	/* The caller has set the locale; anything but UTF-8 draws ASCII. */
	d->utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	ink_pairs_reset();
	init_colors(d);
	ink_colors = d->colors;
	/*
	 * Presses and releases as they come (no click resolution): the UI
	 * makes clicks of them, and a press moved before its release is a
	 * drag.
	 */
	d->mouse = mousemask(BUTTON1_PRESSED | BUTTON1_RELEASED | REPORT_MOUSE_POSITION |
				     BUTTON4_PRESSED | BUTTON5_PRESSED, NULL) != 0;
	mouseinterval(0);
	mouse_motion(d, true);
	return 0;
}

void
display_close(struct display *d)
{
	if (!d->active)
		return;
	mouse_motion(d, false);
	endwin();
	delscreen(d->screen);
	d->screen = NULL;
	if (d->tty)
		fclose(d->tty);
	d->tty = NULL;
	d->active = false;
	set_die_hook(NULL);
}

void
display_suspend(struct display *d)
{
	if (!d->active)
		return;
	def_prog_mode();
	mouse_motion(d, false);
	endwin();
	/* Stop like a shell job; curses comes back when the shell resumes us. */
	kill(getpid(), SIGSTOP);
	reset_prog_mode();
	mouse_motion(d, true);
	refresh();
}

bool
display_key_wait(const struct display *d, int ms)
{
	struct pollfd pfd = { .fd = d->tty ? fileno(d->tty) : STDIN_FILENO, .events = POLLIN };

	return poll(&pfd, 1, ms) > 0;
}

bool
display_hung_up(const struct display *d)
{
	struct pollfd pfd = { .fd = d->tty ? fileno(d->tty) : STDIN_FILENO, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL));
}

/*
 * Whether the config file's colours for c apply: they are set, and the
 * terminal has them (256-colour numbers on an 8-colour terminal leave the
 * element its 8-colour default).
 */
static bool
custom_fits(const struct display *d, enum display_color c)
{
	const struct display_custom *cu = d->custom ? &d->custom[c] : NULL;

	return cu && cu->set && d->colors && cu->fg < d->colors && cu->bg < d->colors;
}

attr_t
display_attr(const struct display *d, enum display_color c)
{
	if (!d->colors)
		return ui_colors[c].mono;
	if (custom_fits(d, c))
		return COLOR_PAIR(c + 1) | d->custom[c].attr;
	return COLOR_PAIR(c + 1) | ui_colors[c].attr;
}

const char *
display_glyph_merged(const struct display *d)
{
	return d->utf8 ? "\xc2\xb7" : ".";
}

const char *
display_glyph_bar(const struct display *d)
{
	return d->utf8 ? "\xe2\x94\x82" : "|";
}

const char *
display_glyph_ellipsis(const struct display *d)
{
	return d->utf8 ? "\xe2\x80\xa6" : "~";
}

struct ink
display_flame_ink(const struct display *d, enum flame_family family, uint32_t hash)
{
	if (d->colors >= 256) {
		unsigned n;
		const short *c256 = palette_shades(family, &n);

		return (struct ink){ 16, c256[hash % n] };
	}
	if (d->colors)
		return (struct ink){ families[family].c8[hash % families[family].n8].fg,
				     families[family].c8[hash % families[family].n8].bg };
	return (struct ink){ -1, -1 };
}

struct ink
display_diff_ink(const struct display *d, int level)
{
	int strong = PALETTE_DIFF_LEVELS / 2;

	if (d->colors >= 256)
		return (struct ink){ 16, palette_diff_xterm(level) };
	if (level > strong)
		return (struct ink){ COLOR_BLACK, COLOR_RED };
	if (level > 0)
		return (struct ink){ COLOR_BLACK, COLOR_MAGENTA };
	if (level < -strong)
		return (struct ink){ COLOR_WHITE, COLOR_BLUE };
	if (level < 0)
		return (struct ink){ COLOR_BLACK, COLOR_CYAN };
	return (struct ink){ COLOR_BLACK, COLOR_WHITE };
}

struct ink
display_diff_shade(const struct display *d, struct ink ink)
{
	if (d->colors >= 256)
		return display_ink_shade(d, ink);
	ink.fg = ink.fg == COLOR_BLACK ? COLOR_WHITE : COLOR_BLACK;
	return ink;
}

attr_t
display_change_attr(const struct display *d, uint64_t base, uint64_t now)
{
	return now > base ? display_attr(d, DISPLAY_GREW)
	       : now < base ? display_attr(d, DISPLAY_SHRANK)
			    : A_NORMAL;
}

struct ink
display_ui_ink(const struct display *d, enum display_color c)
{
	if (custom_fits(d, c))
		return (struct ink){ d->custom[c].fg, d->custom[c].bg };
	if (d->colors >= 256)
		return (struct ink){ ui_colors[c].fg256, ui_colors[c].bg256 };
	return (struct ink){ ui_colors[c].fg8, ui_colors[c].bg8 };
}

struct ink
display_ink_shade(const struct display *d, struct ink ink)
{
	/* Across the 8 colours: each to a neighbour of its own warmth. */
	static const short other8[8] = {
		[COLOR_BLACK] = COLOR_BLUE, [COLOR_RED] = COLOR_MAGENTA,
		[COLOR_GREEN] = COLOR_CYAN, [COLOR_YELLOW] = COLOR_WHITE,
		[COLOR_BLUE] = COLOR_BLACK, [COLOR_MAGENTA] = COLOR_RED,
		[COLOR_CYAN] = COLOR_GREEN, [COLOR_WHITE] = COLOR_YELLOW,
	};
	short c = ink.bg;

	if (d->colors < 256) {
		ink.bg = c >= 0 && c < 8 ? other8[c] : COLOR_BLACK;
		return ink;
	}
	if (c >= 16 && c < 232) {
		/* The cube 16 + 36r + 6g + b: one step darker, or lighter from black. */
		int r = (c - 16) / 36, g = (c - 16) / 6 % 6, b = (c - 16) % 6;

		if (r || g || b) {
			r -= r > 0;
			g -= g > 0;
			b -= b > 0;
		} else {
			r = g = b = 1;
		}
		ink.bg = (short)(16 + 36 * r + 6 * g + b);
	} else if (c >= 232) {
		ink.bg = (short)(c < 240 ? c + 2 : c - 2);
	} else {
		ink.bg = c == 8 ? 7 : 8;
	}
	return ink;
}

void
display_set_ink(const struct display *d, struct ink ink, attr_t extra)
{
	short pair = d->colors ? ink_pair(ink.fg, ink.bg) : 0;

	attr_set(extra, pair, NULL);
}

void
display_eighths(const struct display *d, const struct ink *left, const struct ink *right,
		unsigned split)
{
	/* U+2590 - n: the left n eighths of a cell, in the foreground. */
	char glyph[4] = { '\xe2', '\x96', (char)(0x90 - split), '\0' };
	short pair;

	if (left)
		pair = ink_pair(left->bg, right ? right->bg : -1);
	else
		pair = ink_pair(right ? right->bg : -1, -1);
	if (!pair) {
		const struct ink *big = split >= 4 ? left : right;

		attr_set(A_NORMAL, big ? ink_pair(big->fg, big->bg) : 0, NULL);
		addch(' ');
		return;
	}
	/* An empty left side: the glyph, reversed, is the terminal's background. */
	attr_set(left ? A_NORMAL : A_REVERSE, pair, NULL);
	(void)d;
	addstr(glyph);
}

void
display_addstr(const struct display *d, const char *s, size_t len)
{
	size_t i = 0, start = 0;

	if (d->utf8) {
		addnstr(s, (int)len);
		return;
	}
	while (i < len) {
		uint32_t cp;
		size_t n;

		if (!((unsigned char)s[i] & 0x80)) {
			i++;
			continue;
		}
		addnstr(s + start, (int)(i - start));
		n = text_utf8_decode((const unsigned char *)s + i, len - i, &cp);
		if (!n)
			n = 1;
		/* As many '?' as render_width() gives the character. */
		for (unsigned w = render_width(s + i, n); w; w--)
			addch('?');
		i += n;
		start = i;
	}
	addnstr(s + start, (int)(i - start));
}

/* Inside tmux: whether its set-clipboard option lets programs set the clipboard. */
static bool
tmux_takes_clipboard(void)
{
	char line[32] = "";
	FILE *p;

	/* The server of $TMUX, the one this terminal is a pane of. */
	p = popen("tmux show-options -gv set-clipboard 2>/dev/null", "r");
	if (!p)
		return false;
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	pclose(p);
	return !strcmp(line, "on\n");
}

bool
display_clipboard(const struct display *d, const char *text, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	const char *tmux = getenv("TMUX");
	bool takes;

	(void)d;
	strbuf_addstr(&sb, "\033]52;c;");
	text_base64(&sb, text, len);
	strbuf_addch(&sb, '\a');
	/* Past curses, which has drawn everything: the escape moves no cursor. */
	fflush(stdout);
	if (write(STDOUT_FILENO, sb.buf, sb.len) < 0)
		takes = false;
	else
		takes = tmux && *tmux ? tmux_takes_clipboard() : display_terminal_has_clipboard();
	strbuf_release(&sb);
	return takes;
}
