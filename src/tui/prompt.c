#include "config.h"

#include "tflame/prompt.h"

#include <curses.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/display.h"
#include "tflame/keys.h"
#include "tflame/render.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

void
prompt_init(struct prompt *p, const char *lead)
{
	p->lead = lead;
	strbuf_init(&p->text, 0);
	strbuf_init(&p->error, 0);
	p->cursor = 0;
	p->error_at = SIZE_MAX;
}

void
prompt_release(struct prompt *p)
{
	strbuf_release(&p->text);
	strbuf_release(&p->error);
}

void
prompt_set(struct prompt *p, const char *s, size_t len)
{
	strbuf_reset(&p->text);
	strbuf_add(&p->text, s, len);
	p->cursor = len;
	strbuf_reset(&p->error);
	p->error_at = SIZE_MAX;
}

void
prompt_set_error(struct prompt *p, const char *msg, size_t at)
{
	strbuf_reset(&p->error);
	strbuf_addstr(&p->error, msg);
	p->error_at = at;
}

/* Bytes of the character at i (1 for a byte that is not valid UTF-8). */
static size_t
char_len(const struct prompt *p, size_t i)
{
	uint32_t cp;
	size_t n = text_utf8_decode((const unsigned char *)p->text.buf + i, p->text.len - i, &cp);

	return n ? n : 1;
}

/* Where the character before byte i starts. */
static size_t
char_before(const struct prompt *p, size_t i)
{
	size_t j = i;

	if (!i)
		return 0;
	/* Back over continuation bytes, at most three, to a lead byte. */
	while (j > 0 && i - j < 4) {
		j--;
		if (((unsigned char)p->text.buf[j] & 0xc0) != 0x80)
			break;
	}
	/* A stray continuation byte is a character of its own. */
	return j + char_len(p, j) == i ? j : i - 1;
}

static void
delete_range(struct prompt *p, size_t from, size_t to)
{
	memmove(p->text.buf + from, p->text.buf + to, p->text.len - to);
	strbuf_setlen(&p->text, p->text.len - (to - from));
	p->cursor = from;
}

static bool
is_space(const struct prompt *p, size_t i)
{
	return p->text.buf[i] == ' ' || p->text.buf[i] == '\t';
}

enum prompt_result
prompt_key(struct prompt *p, int key)
{
	size_t i = p->cursor;

	switch (key) {
	case '\n':
	case '\r':
	case KEY_ENTER:
		return PROMPT_ENTER;
	case KEYS_ESC:
	case KEYS_CTRL('c'):
	case KEYS_CTRL('g'):
		return PROMPT_CANCEL;
	case KEY_LEFT:
		p->cursor = char_before(p, i);
		return PROMPT_EDITED;
	case KEY_RIGHT:
		if (i < p->text.len)
			p->cursor += char_len(p, i);
		return PROMPT_EDITED;
	case KEY_HOME:
	case KEYS_CTRL('a'):
		p->cursor = 0;
		return PROMPT_EDITED;
	case KEY_END:
	case KEYS_CTRL('e'):
		p->cursor = p->text.len;
		return PROMPT_EDITED;
	case KEY_BACKSPACE:
	case 127:
	case '\b':
		if (i)
			delete_range(p, char_before(p, i), i);
		break;
	case KEY_DC:
		if (i < p->text.len)
			delete_range(p, i, i + char_len(p, i));
		break;
	case KEYS_CTRL('u'):
		delete_range(p, 0, i);
		break;
	case KEYS_CTRL('w'): {
		size_t j = i;

		while (j && is_space(p, j - 1))
			j--;
		while (j && !is_space(p, j - 1))
			j--;
		delete_range(p, j, i);
		break;
	}
	default:
		/* Printable ASCII, and UTF-8 as curses hands it over, byte by byte. */
		if (key < ' ' || key == 127 || key > 0xff)
			return PROMPT_IGNORED;
		strbuf_addch(&p->text, 0);
		memmove(p->text.buf + i + 1, p->text.buf + i, p->text.len - 1 - i);
		p->text.buf[i] = (char)key;
		p->cursor++;
		break;
	}
	/* An edit makes the error stale. */
	strbuf_reset(&p->error);
	p->error_at = SIZE_MAX;
	return PROMPT_EDITED;
}

/* One character of the text, as drawn. */
struct shown {
	size_t at;   /* byte offset in the text */
	size_t off;  /* where its escaped form starts in the drawn text */
	unsigned w;  /* columns */
};

void
prompt_draw(const struct prompt *p, const struct display *d, int y, int x, int width,
	    const char *hint)
{
	struct strbuf esc = STRBUF_INIT, tail = STRBUF_INIT;
	struct shown *ch = NULL;
	size_t nr = 0, alloc = 0, first = 0, cursor_ch;
	unsigned lead_w = render_width(p->lead, strlen(p->lead)), col = 0, cursor_col, room;
	unsigned used, err_w = 0;
	const char *ell = display_glyph_ellipsis(d);

	if (width <= (int)lead_w + 2)
		return;
	for (size_t i = 0; i < p->text.len;) {
		size_t n = char_len(p, i), off = esc.len;

		text_escape(&esc, p->text.buf + i, n);
		ALLOC_GROW(ch, nr, alloc);
		ch[nr++] = (struct shown){ i, off, render_width(esc.buf + off, esc.len - off) };
		i += n;
	}
	for (cursor_ch = 0; cursor_ch < nr && ch[cursor_ch].at < p->cursor; cursor_ch++)
		;
	/* The error gets up to half the line, the text (and the cursor) the rest. */
	if (p->error.len) {
		strbuf_addstr(&tail, "  ");
		render_label(&tail, p->error.buf, p->error.len, (unsigned)width / 2, d->utf8);
		err_w = render_width(tail.buf, tail.len);
	}
	if (lead_w + err_w + 4 > (unsigned)width) {
		strbuf_reset(&tail);
		err_w = 0;
	}
	room = (unsigned)width - lead_w - err_w - 1;
	for (size_t c = 0; c < cursor_ch; c++)
		col += ch[c].w;
	/*
	 * Drop characters from the front until the cursor fits (the cell
	 * after the text counts), an ellipsis in their place.
	 */
	while (first < cursor_ch && (first ? 1 : 0) + col + 1 > room)
		col -= ch[first++].w;
	cursor_col = (first ? 1 : 0) + col;

	move(y, x);
	clrtoeol();
	attrset(A_BOLD);
	addstr(p->lead);
	attrset(A_NORMAL);
	used = lead_w;
	if (first) {
		addstr(ell);
		used++;
	}
	for (size_t c = first; c < nr; c++) {
		bool bad = p->error.len && p->error_at != SIZE_MAX && p->error_at >= ch[c].at &&
			   p->error_at < ch[c].at + char_len(p, ch[c].at);
		size_t end = c + 1 < nr ? ch[c + 1].off : esc.len;

		if (used + ch[c].w > lead_w + room)
			break;
		attrset(bad ? display_attr(d, DISPLAY_ERROR) | A_REVERSE : A_NORMAL);
		display_addstr(d, esc.buf + ch[c].off, end - ch[c].off);
		used += ch[c].w;
	}
	/* An error at the end of the pattern ("missing )") marks the cell after it. */
	attrset(A_NORMAL);
	if (p->error.len && p->error_at != SIZE_MAX && p->error_at >= p->text.len) {
		attrset(display_attr(d, DISPLAY_ERROR) | A_REVERSE);
		addch(' ');
		used++;
	}
	if (tail.len) {
		move(y, x + (int)used);
		attrset(display_attr(d, DISPLAY_ERROR));
		display_addstr(d, tail.buf, tail.len);
		used += err_w;
	} else if (hint && *hint) {
		unsigned hw = render_width(hint, strlen(hint));

		if (used + 2 + hw < (unsigned)width) {
			attrset(display_attr(d, DISPLAY_LABEL));
			mvaddstr(y, x + width - 1 - (int)hw, hint);
		}
	}
	attrset(A_NORMAL);
	move(y, x + (int)(lead_w + cursor_col));
	free(ch);
	strbuf_release(&esc);
	strbuf_release(&tail);
}
