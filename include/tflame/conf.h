#ifndef TFLAME_CONF_H
#define TFLAME_CONF_H

/*
 * The explorer's config file, after tig's tigrc: read from
 * $TFLAME_CONFIG if set (empty: no file), else
 * $XDG_CONFIG_HOME/tflame/config (~/.config/tflame/config). One command a
 * line, '#' to the end of a line is a comment, words may be quoted with
 * '...' or "...":
 *
 *   bind KEYMAP KEY ACTION          ACTION a request name (keys.h), or none
 *   color AREA FG BG [ATTR...]      AREA a DISPLAY_COLORS element, lower case
 *   set NAME = VALUE                the settings of struct conf below
 *
 * A bad line is skipped with a warning "file:line: message"; the rest
 * applies. Only the explorer reads the file: report, dump and collapse
 * print the same everywhere.
 */

#include <stdbool.h>
#include <stddef.h>

#include "tflame/display.h"
#include "tflame/import.h"
#include "tflame/keys.h"
#include "tflame/pane.h"

struct strbuf;

struct conf {
	struct keys keys;
	struct display_custom colors[DISPLAY_NR_COLORS];
	enum color_mode color_mode;   /* set color-mode = function|module|kind */
	bool flip;                    /* set orientation = icicle|flame */
	enum weight_mode weight;      /* set weight = period|samples */
	bool symbols;                 /* set symbols = yes|no */
	bool demangle;                /* set demangle = yes|no */

	char **warnings;              /* "file:line: message", owned */
	size_t nr_warnings, alloc_warnings;

	/* where each key was bound in the file parsed last, to report a repeat */
	struct conf_seen {
		enum keymap km;
		int key;
		unsigned long line;
	} *seen;
	size_t nr_seen, alloc_seen;
};

/* The defaults. Release with conf_release(). */
void conf_init(struct conf *c);
void conf_release(struct conf *c);

/*
 * Apply the text of a config file (len bytes; name for messages) to c.
 * Returns the number of warnings it added to c->warnings.
 */
size_t conf_parse(struct conf *c, const char *name, const char *text, size_t len);

/*
 * Read and apply the file at path. A missing file is a warning only if
 * must_exist. Returns the number of warnings added.
 */
size_t conf_load_file(struct conf *c, const char *path, bool must_exist);

/*
 * The user's file, as the header says: $TFLAME_CONFIG must exist; the
 * default one may be missing. Returns the number of warnings added.
 */
size_t conf_load_user(struct conf *c);

/*
 * The defaults in the file's own syntax: every setting, colour and binding
 * of each keymap, so that the output read back gives the same bindings.
 */
void conf_dump_defaults(struct strbuf *out);

#endif /* TFLAME_CONF_H */
