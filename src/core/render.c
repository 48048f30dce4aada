#include "config.h"

#include "tflame/render.h"

#include <stdint.h>
#include <wchar.h>

#include "tflame/strbuf.h"
#include "tflame/text.h"

/*
 * Columns of one code point. wcwidth() depends on the locale, and labels
 * must measure the same in the TUI and in golden dumps, so the widths are
 * decided here: combining marks take none, East Asian wide and emoji
 * blocks take two, everything else one.
 */
static unsigned
cp_width(uint32_t cp)
{
	if ((cp >= 0x0300 && cp <= 0x036f) || (cp >= 0x200b && cp <= 0x200d) ||
	    (cp >= 0xfe00 && cp <= 0xfe0f))
		return 0;
	if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) ||
	    (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
	    (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
	    (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1faff) ||
	    (cp >= 0x20000 && cp <= 0x3fffd))
		return 2;
	return 1;
}

/* Length and columns of the character at s; invalid bytes count as one. */
static size_t
next_char(const char *s, size_t len, unsigned *cols)
{
	uint32_t cp;
	size_t n = text_utf8_decode((const unsigned char *)s, len, &cp);

	if (!n) {
		*cols = 1;
		return 1;
	}
	*cols = cp_width(cp);
	return n;
}

unsigned
render_width(const char *s, size_t len)
{
	unsigned w = 0, cols;
	size_t i = 0;

	while (i < len) {
		i += next_char(s + i, len - i, &cols);
		w += cols;
	}
	return w;
}

unsigned
render_cut(struct strbuf *out, const char *text, size_t len, unsigned width, bool utf8)
{
	unsigned used = 0, cols, all;
	size_t i = 0;

	if (!width)
		return 0;
	all = render_width(text, len);
	if (all <= width) {
		strbuf_add(out, text, len);
		return all;
	}
	/* Keep one column for the ellipsis. */
	while (i < len) {
		size_t n = next_char(text + i, len - i, &cols);

		if (used + cols > width - 1)
			break;
		strbuf_add(out, text + i, n);
		used += cols;
		i += n;
	}
	strbuf_addstr(out, utf8 ? "\xe2\x80\xa6" : "~");
	return used + 1;
}

unsigned
render_label(struct strbuf *out, const char *name, size_t len, unsigned width, bool utf8)
{
	struct strbuf esc = STRBUF_INIT;
	unsigned used;

	if (!width)
		return 0;
	text_escape(&esc, name, len);
	used = render_cut(out, esc.buf, esc.len, width, utf8);
	strbuf_release(&esc);
	return used;
}

void
render_cut_middle(struct strbuf *out, const char *text, size_t len, unsigned width, bool utf8)
{
	size_t tail = len;
	unsigned tail_w = 0, w;

	if (render_width(text, len) <= width || width < 5) {
		render_cut(out, text, len, width, utf8);
		return;
	}
	/* The tail gets half the room less the ellipsis, whole characters. */
	while (tail > 0) {
		size_t at = tail - 1;

		while (at > 0 && ((unsigned char)text[at] & 0xc0) == 0x80)
			at--;
		w = render_width(text + at, tail - at);
		if (tail_w + w > (width - 1) / 2)
			break;
		tail_w += w;
		tail = at;
	}
	render_cut(out, text, tail, width - tail_w, utf8);
	strbuf_add(out, text + tail, len - tail);
}

bool
render_thread_name(struct strbuf *out, const struct profile_set *ps, thread_id t, bool utf8)
{
	struct strbuf names = STRBUF_INIT;
	bool any;

	profile_thread_names(ps, t, utf8 ? "\xe2\x86\x92" : "->", &names);
	any = names.len > 0;
	if (any)
		text_escape(out, names.buf, names.len);
	strbuf_release(&names);
	return any;
}
