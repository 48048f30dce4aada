#ifndef TFLAME_RENDER_H
#define TFLAME_RENDER_H

/*
 * Turning names into cell text, shared by the TUI and `tflame dump`, so
 * both show exactly the same labels.
 *
 * Names come from profiles and are untrusted: they are escaped first
 * (text.h), then measured in terminal columns (wide characters take two)
 * and cut to fit.
 */

#include <stdbool.h>
#include <stddef.h>

#include "tflame/profile.h"

struct strbuf;

/* Terminal columns of the UTF-8 text s (already escaped: no controls). */
unsigned render_width(const char *s, size_t len);

/*
 * Append the label of name for a box of width columns to out: the escaped
 * name if it fits, else as much as fits followed by an ellipsis ("…" when
 * utf8, "~" otherwise); nothing for width 0, the ellipsis alone for width
 * 1. Never splits a character. Returns the columns used (<= width).
 */
unsigned render_label(struct strbuf *out, const char *name, size_t len, unsigned width,
		      bool utf8);
/*
 * The same for text that is already escaped (text_escape()): cut to width
 * columns with the ellipsis, never escaping it again, which would double
 * its backslashes.
 */
unsigned render_cut(struct strbuf *out, const char *text, size_t len, unsigned width,
		    bool utf8);
/*
 * The same, cut in the middle when it does not fit, the end keeping up to
 * half the width: a file name keeps its start and its extension
 * ("system-…f.txt.gz"), a path its file name.
 */
void render_cut_middle(struct strbuf *out, const char *text, size_t len, unsigned width,
		       bool utf8);

/*
 * Append thread t's name to out, escaped: its names in order, "sh→python3"
 * for a tid that exec'd ("sh->python3" without utf8), or missing when
 * the input named none. Returns whether it added anything.
 */
bool render_thread_name(struct strbuf *out, const struct profile_set *ps, thread_id t,
			bool utf8);

#endif /* TFLAME_RENDER_H */
