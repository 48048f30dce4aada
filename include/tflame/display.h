#ifndef TFLAME_DISPLAY_H
#define TFLAME_DISPLAY_H

/*
 * The terminal: the one place that sets it up and puts it back.
 *
 * display_open() starts curses on the controlling terminal (reading keys
 * from /dev/tty when stdin carries the profile), picks UTF-8 or ASCII
 * drawing from the locale, and 256, 8 or no colours from the terminal and
 * NO_COLOR. display_close() restores the terminal; it is also registered
 * as die()'s hook, so an out-of-memory exit or a BUG() leaves a usable
 * shell. Every other exit path goes through display_close() too.
 *
 * Colours are named, never numbered, outside display.c: UI elements by
 * enum display_color (DISPLAY_COLORS), flame boxes by a family and a hash
 * (display_flame_ink()), so that one function keeps one colour in every
 * pane, or by their change when comparing (display_diff_ink()).
 */

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tflame/palette.h"

struct tf_error;

/*
 * UI colours: name, 256-colour fg/bg, 8-colour fg/bg (-1: the terminal's
 * default), and the attributes used with them, and without colour.
 */
#define DISPLAY_COLORS(C) \
	C(TAB_BAR, 252, 236, COLOR_WHITE, COLOR_BLUE, 0, A_REVERSE) \
	C(TAB_ACTIVE, 16, 214, COLOR_BLACK, COLOR_YELLOW, A_BOLD, A_BOLD) \
	C(TAB_OFF, 243, 236, COLOR_BLACK, COLOR_BLUE, A_DIM, A_REVERSE | A_DIM) \
	C(TAB_INFO, 223, 236, COLOR_YELLOW, COLOR_BLUE, 0, A_REVERSE) \
	C(STATUS, 250, -1, -1, -1, 0, 0) \
	C(MESSAGE, 214, -1, COLOR_YELLOW, -1, A_BOLD, A_BOLD) \
	C(NAME, 231, -1, -1, -1, A_BOLD, A_BOLD) \
	C(LABEL, 244, -1, COLOR_CYAN, -1, 0, A_DIM) \
	C(RULE, 238, -1, COLOR_BLUE, -1, 0, A_DIM) \
	C(MERGED, 242, -1, COLOR_WHITE, -1, 0, A_DIM) \
	C(HEADING, 214, -1, COLOR_YELLOW, -1, A_BOLD, A_BOLD | A_UNDERLINE) \
	C(DIMMED, 246, 236, COLOR_WHITE, COLOR_BLACK, 0, A_DIM) \
	C(MATCH_DOTS, 226, -1, COLOR_YELLOW, -1, A_BOLD, A_BOLD) \
	C(ERROR, 203, -1, COLOR_RED, -1, A_BOLD, A_BOLD) \
	C(ROW_SELECTED, 16, 252, COLOR_BLACK, COLOR_WHITE, 0, A_REVERSE) \
	C(ROW_UNFOCUSED, 231, 238, COLOR_WHITE, COLOR_BLUE, 0, A_UNDERLINE) \
	C(GREW, 203, -1, COLOR_RED, -1, A_BOLD, A_BOLD) \
	C(SHRANK, 75, -1, COLOR_CYAN, -1, A_BOLD, A_UNDERLINE)

#define DISPLAY_ENUM_(name, ...) DISPLAY_##name,
enum display_color {
	DISPLAY_COLORS(DISPLAY_ENUM_)
	DISPLAY_NR_COLORS
};
#undef DISPLAY_ENUM_


/*
 * A UI element's colours from the config file (conf.h), in place of its
 * DISPLAY_COLORS entry: colour numbers (-1: the terminal's default) and
 * attributes. Ignored without colour.
 */
struct display_custom {
	bool set;
	short fg, bg;
	attr_t attr;
};

struct display {
	/* set before display_open(): DISPLAY_NR_COLORS entries, or NULL; borrowed */
	const struct display_custom *custom;
	bool utf8;          /* the locale is UTF-8: draw "…", "·", arrows */
	int colors;         /* 256, 8, or 0 (NO_COLOR, or a monochrome terminal) */
	bool mouse;         /* the terminal reports mouse events */
	FILE *tty;          /* /dev/tty for keys when stdin carries the profile */
	SCREEN *screen;
	bool active;        /* between display_open() and display_close() */
};

/*
 * Before curses: true if the program can run a full-screen UI here: stdout
 * is a terminal, and so is stdin, or, when stdin carries the profile
 * (stdin_busy), /dev/tty can be opened for keys. On false, *why says what
 * is missing.
 */
bool display_usable(bool stdin_busy, const char **why);

/*
 * Whether curses can draw on terminal type term (display_open() asks): 0
 * if terminfo knows it and it can move the cursor, else -1 with err
 * saying which ("dumb" cannot). Leaves no terminal set up. In terminfo.c,
 * away from <term.h>'s macros, which take names such as user8.
 */
int display_terminal_check(const char *term, struct tf_error *err);

/*
 * Start curses (see above). Returns 0, or -1 with err set (the terminal is
 * then untouched). The caller has called setlocale().
 */
int display_open(struct display *d, bool stdin_busy, struct tf_error *err);
/* Restore the terminal; safe to call twice, or after a failed open. */
void display_close(struct display *d);
/* Leave curses for a moment (suspend), and come back. */
void display_suspend(struct display *d);

/*
 * Whether a key is waiting to be read, or comes within ms milliseconds,
 * without reading it: curses reads the terminal a byte at a time, so what
 * it has not read is still in the terminal's queue. Reading ahead with
 * getch() instead would take a click before its double click could
 * follow.
 */
bool display_key_wait(const struct display *d, int ms);

/* True if the terminal keys come from has hung up (its window closed). */
bool display_hung_up(const struct display *d);

/* Attributes (colour pair included) of a UI element. */
attr_t display_attr(const struct display *d, enum display_color c);

/*
 * The colours of a box: text fg on background bg, terminal colour numbers
 * (-1: the terminal's default). Boxes are painted by ink rather than by
 * attributes so that a cell two boxes share can take one's colour as its
 * foreground and the other's as its background.
 */
struct ink {
	short fg, bg;
};

/*
 * The ink of a flame box of family whose name hashes to hash: the same
 * hash always gets the same ink. Only meaningful with colours.
 */
struct ink display_flame_ink(const struct display *d, enum flame_family family, uint32_t hash);
/*
 * The ink of a box whose change against the base is level
 * (palette_diff_level()): the palette's shade with 256 colours; with 8,
 * magenta and red for grew (weak, strong), cyan and blue for shrank,
 * white about unchanged. Only meaningful with colours.
 */
struct ink display_diff_ink(const struct display *d, int level);
/*
 * The ink a box of level takes beside a neighbour of the same ink: with
 * 256 colours a darker shade (display_ink_shade()); with 8, the other
 * text colour, since another background would say another change.
 */
struct ink display_diff_shade(const struct display *d, struct ink ink);
/* The attributes of the words of a change from base to now: grew, shrank, or none. */
attr_t display_change_attr(const struct display *d, uint64_t base, uint64_t now);
/* The ink of a UI element (for boxes a search dims). */
struct ink display_ui_ink(const struct display *d, enum display_color c);
/*
 * Another shade of ink's background, never the same one: the second of
 * two neighbouring boxes of one colour takes it, so that they are told
 * apart.
 */
struct ink display_ink_shade(const struct display *d, struct ink ink);
/* Draw from now on with ink, plus attributes extra (A_BOLD...). */
void display_set_ink(const struct display *d, struct ink ink, attr_t extra);
/*
 * Draw one cell at the cursor whose eighths [0, split) are left's
 * background and the rest right's (1 <= split <= 7), with a block glyph;
 * NULL for either side leaves it the terminal's background. Needs UTF-8
 * and colours; if the terminal runs out of colour pairs, the cell is
 * drawn whole in the colour of its bigger side.
 */
void display_eighths(const struct display *d, const struct ink *left, const struct ink *right,
		     unsigned split);

/*
 * Write len bytes of s (escaped text: no control characters) at the
 * cursor. Without UTF-8, every non-ASCII character becomes '?' ("??" for
 * a wide one), so the columns are those render_width() counted.
 */
void display_addstr(const struct display *d, const char *s, size_t len);

/*
 * Put len bytes of text on the clipboard of the terminal the user sits at,
 * with the OSC 52 escape (base64, so no byte of text reaches the terminal
 * as itself): it travels through SSH, and tmux takes it when its
 * set-clipboard option is on. Returns whether the terminal says it takes
 * the escape: inside tmux, its set-clipboard is "on"; elsewhere, the
 * terminfo entry has the Ms capability. On false the escape was still
 * sent (a terminal ignores one it does not know), and the caller should
 * keep the text where the user can find it.
 */
bool display_clipboard(const struct display *d, const char *text, size_t len);
/* Whether terminfo gives the terminal Ms, the capability of OSC 52 (terminfo.c). */
bool display_terminal_has_clipboard(void);

/* Characters that depend on UTF-8: "·" or ".", "│" or "|", "…" or "~". */
const char *display_glyph_merged(const struct display *d);
const char *display_glyph_bar(const struct display *d);
const char *display_glyph_ellipsis(const struct display *d);

#endif /* TFLAME_DISPLAY_H */
