#ifndef TFLAME_PANE_SOURCE_H
#define TFLAME_PANE_SOURCE_H

/*
 * The source view: a page over the panes (like the thread picker) that
 * shows the source file of one function with, in a gutter, the self and
 * total weight of each line as shares of the lens' total (source.h says
 * what they count). Lines with weight are marked and lit; the view opens
 * on the selected frame's line, or the function's hottest line, and
 * moves with the usual keys; n and N go to the next and previous line
 * with weight.
 *
 * When the file cannot be shown (no file recorded, not found, unreadable,
 * binary, too large), it says why and lists the weighed lines of that
 * file (file:line, self, total) instead, so that the numbers are there
 * all the same.
 *
 * The view computes its lines once, when it opens, for the model's lens
 * at that moment, and borrows the model until source_pane_free().
 */

#include <stdbool.h>
#include <stdint.h>

#include "tflame/keys.h"
#include "tflame/profile.h"

struct display;
struct model;
struct pane_input;
struct source_search;
struct strbuf;

struct source_pane;

/*
 * Open the view on function func (a model_funcs() index) whose box was
 * frame (FRAME_NONE when no frame was chosen, as from a table of
 * functions), looking for files where says. Never fails: what cannot be
 * shown is said on the page. Free with source_pane_free().
 */
struct source_pane *source_pane_open(struct model *m, const struct source_search *where,
				     uint32_t func, frame_id frame);
void source_pane_free(struct source_pane *sp);

/*
 * Act on req (in: the pointer for mouse requests, else NULL); a message
 * for the status line goes to msg. Returns false when the view is to be
 * closed (Esc, q, o again).
 */
bool source_pane_request(struct source_pane *sp, enum request req, const struct pane_input *in,
			 struct strbuf *msg);

/* Draw the view on the whole screen but its last line. */
void source_pane_draw(struct source_pane *sp, const struct display *d);

#endif /* TFLAME_PANE_SOURCE_H */
