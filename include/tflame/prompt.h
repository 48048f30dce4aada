#ifndef TFLAME_PROMPT_H
#define TFLAME_PROMPT_H

/*
 * A one-line editor: the search prompt at the bottom of the screen, and
 * the filter of the thread picker.
 *
 * The text is bytes as typed: UTF-8 arrives a byte at a time from curses
 * and is kept as it comes, so a name can be typed as it is spelled; it is
 * escaped (text.h) whenever it is drawn. The cursor moves and deletes by
 * whole characters. An error (a bad regex) can be shown after the text,
 * with the character it points at marked, until the next edit.
 *
 * Keys: printable characters insert; Left/Right, Home/End (Ctrl-A,
 * Ctrl-E) move; Backspace and Delete delete a character, Ctrl-W the word
 * before the cursor, Ctrl-U everything before it; Enter accepts; Esc,
 * Ctrl-C and Ctrl-G cancel. Anything else is left to the caller.
 */

#include <stdbool.h>
#include <stddef.h>

#include "tflame/strbuf.h"

struct display;

struct prompt {
	const char *lead;     /* drawn before the text, "/" */
	struct strbuf text;   /* what was typed */
	size_t cursor;        /* a byte offset into text, at a character's start */
	struct strbuf error;  /* the error to show, empty for none */
	size_t error_at;      /* the byte it points at, or SIZE_MAX */
};

enum prompt_result {
	PROMPT_EDITED,  /* the text or the cursor changed */
	PROMPT_ENTER,   /* accept the text */
	PROMPT_CANCEL,  /* leave, keeping nothing */
	PROMPT_IGNORED, /* not an editing key: the caller may use it */
};

/* An empty prompt; lead is borrowed. Release with prompt_release(). */
void prompt_init(struct prompt *p, const char *lead);
void prompt_release(struct prompt *p);
/* Replace the text (len bytes of s), the cursor at its end, no error. */
void prompt_set(struct prompt *p, const char *s, size_t len);
/* Show msg after the text, marking the character at byte at (SIZE_MAX: none). */
void prompt_set_error(struct prompt *p, const char *msg, size_t at);

/* Act on a key (a curses key code). */
enum prompt_result prompt_key(struct prompt *p, int key);

/*
 * Draw the prompt in width cells at (y, x): the lead, the text (its end
 * dropped from the front when it does not fit, so the cursor shows), the
 * error, and hint right-aligned when there is room. Leaves the terminal's
 * cursor on the prompt's.
 */
void prompt_draw(const struct prompt *p, const struct display *d, int y, int x, int width,
		 const char *hint);

#endif /* TFLAME_PROMPT_H */
