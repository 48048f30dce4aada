#ifndef TFLAME_FLOW_H
#define TFLAME_FLOW_H

/*
 * Styled text flowed into lines of a given width, for the details bar and
 * the help and details pages: nothing is ever cut, long text wraps.
 *
 * Text is escaped on the way in (text.h), so profile data can be handed
 * over as it is. A word moves to the next line when it does not fit; text
 * added with flow_text(), and a word wider than a line, break at any
 * character. Continuation lines start with indent spaces.
 */

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tflame/strbuf.h"

struct profile;

struct display;

struct flow_seg {
	attr_t attr;
	size_t off, len; /* bytes of text */
};

struct flow {
	unsigned width;         /* columns per line, at least 1 */
	unsigned indent;        /* columns before the text of a continuation line */
	struct strbuf text;     /* every segment's text, escaped */
	struct flow_seg *segs;
	size_t nr_segs, alloc_segs;
	size_t *lines;          /* per line: index of its first segment */
	size_t nr_lines, alloc_lines;
	unsigned col;           /* columns used on the last line */
	struct strbuf esc;      /* scratch */
};

/* An empty flow of one empty line. Release with flow_release(). */
void flow_init(struct flow *fl, unsigned width);
void flow_release(struct flow *fl);
/* Empty fl and set a new width (indent is kept). */
void flow_reset(struct flow *fl, unsigned width);

/* End the current line. */
void flow_newline(struct flow *fl);
/* n spaces, unless at the start of a line. */
void flow_space(struct flow *fl, unsigned n);
/* Text kept on one line if it fits one (see above). */
void flow_word(struct flow *fl, attr_t attr, const char *s, size_t len);
void flow_wordz(struct flow *fl, attr_t attr, const char *s);
/*
 * A label and its value, as flow_word() each, but kept on one line: the
 * pair moves to the next line together when it fits one.
 */
void flow_field(struct flow *fl, attr_t label_attr, const char *label, attr_t attr, const char *s,
		size_t len);
/*
 * Text that wraps between words (runs of spaces at the start of the text
 * are kept, to indent it; other runs vanish where a line wraps).
 */
void flow_words(struct flow *fl, attr_t attr, const char *s, size_t len);
/* Text that breaks at any character. */
void flow_text(struct flow *fl, attr_t attr, const char *s, size_t len);

/*
 * An amount of p and its share of all as words: "1.51 s (45.6% of all)",
 * the amount bold, the share in label. With of (what zoom is the weight
 * of), the share of that too: "(45.6% of all, 80.0% of zoom)". Nothing
 * is just "0 s": it has no share.
 */
void flow_amount(struct flow *fl, attr_t label, const struct profile *p, uint64_t w,
		 uint64_t all, uint64_t zoom, const char *of);
/*
 * The same, all named what (NULL: "all"): "41.1 ms (2.7% of the
 * timeline)" for a stretch of Time Order, whose share is of time, not of
 * the weight.
 */
void flow_amount_of(struct flow *fl, attr_t label, const struct profile *p, uint64_t w,
		    uint64_t all, const char *what, uint64_t zoom, const char *of);

/*
 * A change against the base of a comparison, as text: "1.20 s -> 1.51 s
 * +310 ms (+25.8%)" (an arrow with utf8), "new" for a base of nothing,
 * "gone" for nothing now. Appended to out.
 */
void flow_change_text(struct strbuf *out, const struct profile *p, uint64_t base, uint64_t now,
		      bool utf8);
/*
 * The same as words, for a line under the one that gives now: "base
 * 1.20 s +310 ms (+25.8%)", the amount bold, the change in the colour
 * that says it grew or shrank (display_change_attr()), the rest in label.
 */
void flow_change(struct flow *fl, const struct display *d, attr_t label,
		 const struct profile *p, uint64_t base, uint64_t now);

/*
 * Draw lines [first, first + n) (n clipped to the lines there are) at
 * screen row y, column x, each padded with fill to the full width.
 */
void flow_draw(const struct flow *fl, const struct display *d, size_t first, size_t n, int y,
	       int x, attr_t fill);

#endif /* TFLAME_FLOW_H */
