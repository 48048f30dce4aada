#include "config.h"

#include "tflame/flow.h"

#include <stdlib.h>
#include <string.h>

#include "tflame/diff.h"
#include "tflame/display.h"
#include "tflame/profile.h"
#include "tflame/render.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

void
flow_init(struct flow *fl, unsigned width)
{
	memset(fl, 0, sizeof(*fl));
	strbuf_init(&fl->text, 0);
	strbuf_init(&fl->esc, 0);
	flow_reset(fl, width);
}

void
flow_release(struct flow *fl)
{
	strbuf_release(&fl->text);
	strbuf_release(&fl->esc);
	free(fl->segs);
	free(fl->lines);
	memset(fl, 0, sizeof(*fl));
}

void
flow_reset(struct flow *fl, unsigned width)
{
	fl->width = width ? width : 1;
	strbuf_reset(&fl->text);
	fl->nr_segs = 0;
	fl->nr_lines = 0;
	ALLOC_GROW(fl->lines, fl->nr_lines, fl->alloc_lines);
	fl->lines[fl->nr_lines++] = 0;
	fl->col = 0;
}

/* Append escaped bytes as a segment on the current line. */
static void
add_seg(struct flow *fl, attr_t attr, const char *s, size_t len, unsigned cols)
{
	struct flow_seg *last = fl->nr_segs > fl->lines[fl->nr_lines - 1]
					? &fl->segs[fl->nr_segs - 1] : NULL;

	/* Runs of one attribute stay one segment: fewer curses calls. */
	if (last && last->attr == attr && last->off + last->len == fl->text.len) {
		last->len += len;
	} else {
		ALLOC_GROW(fl->segs, fl->nr_segs, fl->alloc_segs);
		fl->segs[fl->nr_segs++] = (struct flow_seg){ attr, fl->text.len, len };
	}
	strbuf_add(&fl->text, s, len);
	fl->col += cols;
}

void
flow_newline(struct flow *fl)
{
	ALLOC_GROW(fl->lines, fl->nr_lines, fl->alloc_lines);
	fl->lines[fl->nr_lines++] = fl->nr_segs;
	fl->col = 0;
}

/* A new line that continues the previous one: indented. */
static void
wrap(struct flow *fl)
{
	flow_newline(fl);
	if (fl->indent && fl->indent < fl->width) {
		char pad[64];
		unsigned n = fl->indent < sizeof(pad) ? fl->indent : sizeof(pad);

		memset(pad, ' ', n);
		add_seg(fl, A_NORMAL, pad, n, n);
	}
}

void
flow_space(struct flow *fl, unsigned n)
{
	if (!fl->col)
		return;
	for (; n && fl->col < fl->width; n--)
		add_seg(fl, A_NORMAL, " ", 1, 1);
}

/* Escaped text, broken at any character. */
static void
add_broken(struct flow *fl, attr_t attr, const char *s, size_t len)
{
	size_t i = 0, start = 0;
	unsigned run = 0;

	while (i < len) {
		uint32_t cp;
		size_t n = text_utf8_decode((const unsigned char *)s + i, len - i, &cp);
		unsigned cols;

		if (!n)
			n = 1;
		cols = render_width(s + i, n);
		if (fl->col + run + cols > fl->width && (fl->col + run > 0)) {
			add_seg(fl, attr, s + start, i - start, run);
			wrap(fl);
			start = i;
			run = 0;
			/* A character wider than the line goes on a line of its own. */
			if (fl->col + cols > fl->width && fl->col) {
				flow_newline(fl);
			}
		}
		run += cols;
		i += n;
	}
	if (i > start)
		add_seg(fl, attr, s + start, i - start, run);
}

void
flow_text(struct flow *fl, attr_t attr, const char *s, size_t len)
{
	strbuf_reset(&fl->esc);
	text_escape(&fl->esc, s, len);
	add_broken(fl, attr, fl->esc.buf, fl->esc.len);
}

void
flow_word(struct flow *fl, attr_t attr, const char *s, size_t len)
{
	unsigned cols;

	strbuf_reset(&fl->esc);
	text_escape(&fl->esc, s, len);
	cols = render_width(fl->esc.buf, fl->esc.len);
	if (fl->col + cols > fl->width && fl->col > fl->indent && cols <= fl->width - fl->indent)
		wrap(fl);
	if (fl->col + cols <= fl->width)
		add_seg(fl, attr, fl->esc.buf, fl->esc.len, cols);
	else
		add_broken(fl, attr, fl->esc.buf, fl->esc.len);
}

void
flow_field(struct flow *fl, attr_t label_attr, const char *label, attr_t attr, const char *s,
	   size_t len)
{
	unsigned cols;

	strbuf_reset(&fl->esc);
	text_escape(&fl->esc, s, len);
	cols = render_width(label, strlen(label)) + 1 + render_width(fl->esc.buf, fl->esc.len);
	/* Wrap before the label, not between it and its value, when the pair fits a line. */
	if (fl->col + cols > fl->width && fl->col > fl->indent && cols <= fl->width - fl->indent)
		wrap(fl);
	flow_wordz(fl, label_attr, label);
	flow_space(fl, 1);
	flow_word(fl, attr, s, len);
}

void
flow_words(struct flow *fl, attr_t attr, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t j = i;

		if (s[i] == ' ') {
			while (j < len && s[j] == ' ')
				j++;
			if (!i)
				add_seg(fl, attr, s, j, (unsigned)j);
			else
				flow_space(fl, (unsigned)(j - i));
		} else {
			while (j < len && s[j] != ' ')
				j++;
			flow_word(fl, attr, s + i, j - i);
		}
		i = j;
	}
}

void
flow_wordz(struct flow *fl, attr_t attr, const char *s)
{
	flow_word(fl, attr, s, strlen(s));
}

/* "+310 ms (+25.8%)", "new", "gone" or "unchanged": the change alone. */
static void
add_delta(struct strbuf *out, const struct profile *p, uint64_t base, uint64_t now)
{
	uint64_t d = now > base ? now - base : base - now;

	switch (diff_change(base, now)) {
	case DIFF_NEW:
	case DIFF_GONE:
		strbuf_addstr(out, diff_change_sign(diff_change(base, now)));
		return;
	case DIFF_SAME:
		strbuf_addstr(out, "unchanged");
		return;
	case DIFF_GREW:
	case DIFF_SHRANK:
		break;
	}
	strbuf_addch(out, now > base ? '+' : '-');
	profile_format_amount(p, d, out);
	strbuf_addf(out, " (%c%.1f%%)", now > base ? '+' : '-', (double)d * 100.0 / (double)base);
}

void
flow_change_text(struct strbuf *out, const struct profile *p, uint64_t base, uint64_t now,
		 bool utf8)
{
	profile_format_amount(p, base, out);
	strbuf_addstr(out, utf8 ? " \xe2\x86\x92 " : " -> ");
	profile_format_amount(p, now, out);
	strbuf_addch(out, ' ');
	add_delta(out, p, base, now);
}

void
flow_change(struct flow *fl, const struct display *d, attr_t label, const struct profile *p,
	    uint64_t base, uint64_t now)
{
	struct strbuf sb = STRBUF_INIT;

	flow_wordz(fl, label, "base");
	flow_space(fl, 1);
	profile_format_amount(p, base, &sb);
	flow_word(fl, A_BOLD, sb.buf, sb.len);
	flow_space(fl, 1);
	strbuf_reset(&sb);
	add_delta(&sb, p, base, now);
	flow_word(fl, display_change_attr(d, base, now), sb.buf, sb.len);
	strbuf_release(&sb);
}

void
flow_draw(const struct flow *fl, const struct display *d, size_t first, size_t n, int y, int x,
	  attr_t fill)
{
	for (size_t l = first; l < fl->nr_lines && l < first + n; l++, y++) {
		size_t end = l + 1 < fl->nr_lines ? fl->lines[l + 1] : fl->nr_segs;
		unsigned cols = 0;

		move(y, x);
		for (size_t s = fl->lines[l]; s < end; s++) {
			const struct flow_seg *seg = &fl->segs[s];

			attrset(seg->attr);
			display_addstr(d, fl->text.buf + seg->off, seg->len);
			cols += render_width(fl->text.buf + seg->off, seg->len);
		}
		attrset(fill);
		for (; cols < fl->width; cols++)
			addch(' ');
	}
	attrset(A_NORMAL);
}

void
flow_amount(struct flow *fl, attr_t label, const struct profile *p, uint64_t w, uint64_t all,
	    uint64_t zoom, const char *of)
{
	flow_amount_of(fl, label, p, w, all, NULL, zoom, of);
}

void
flow_amount_of(struct flow *fl, attr_t label, const struct profile *p, uint64_t w, uint64_t all,
	       const char *what, uint64_t zoom, const char *of)
{
	bool has_zoom = of != NULL && zoom;
	struct strbuf sb = STRBUF_INIT;

	profile_format_amount(p, w, &sb);
	flow_word(fl, A_BOLD, sb.buf, sb.len);
	/* "self 0 s", not "self 0 s (0% of all)": nothing has no share. */
	if (!w || !all) {
		strbuf_release(&sb);
		return;
	}
	flow_space(fl, 1);
	strbuf_reset(&sb);
	strbuf_addch(&sb, '(');
	profile_format_share(w, all, &sb);
	strbuf_addf(&sb, " of %s%s", what ? what : "all", has_zoom ? "," : ")");
	flow_word(fl, label, sb.buf, sb.len);
	if (has_zoom) {
		flow_space(fl, 1);
		strbuf_reset(&sb);
		profile_format_share(w, zoom, &sb);
		strbuf_addf(&sb, " of %s)", of);
		flow_word(fl, label, sb.buf, sb.len);
	}
	strbuf_release(&sb);
}
