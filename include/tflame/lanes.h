#ifndef TFLAME_LANES_H
#define TFLAME_LANES_H

/*
 * Time Order's lanes: the threads of the selection, each a timeline of
 * its own on one time axis (model_timeline()).
 *
 * Over the flame chart, an overview has one row per lane, heaviest
 * thread first: its name and tid, and a sparkline of how much of each
 * column of the time on screen the thread's samples cover. Under it a
 * ruler labels that time, so both follow zoom and pan. The chart below
 * is the focused lane's, or the merged selection's (m). [ and ] move the
 * focus, a click on a row focuses that lane.
 *
 * The overview takes at most a third of the pane's height and scrolls
 * to keep the focus on it. A selection of one thread has no overview: its
 * lane is the whole chart, with the whole height but the ruler's row.
 *
 * struct lanes is view state only (which thread has the focus, whether
 * the chart is merged, the overview's scroll); it borrows the model for
 * each call, as a pane does.
 */

#include <stdbool.h>
#include <stdint.h>

#include "tflame/pane.h"
#include "tflame/profile.h"

struct chart;
struct strbuf;

struct lanes {
	thread_id focus;     /* the focused lane's thread; THREAD_NONE: the heaviest */
	bool merged;         /* show the merged chart, when merged_set */
	bool merged_set;     /* m was pressed; until then merged only without times */
	uint32_t top;        /* the first lane on the overview */
	/* where the last draw put the overview: clicks find lanes by it */
	int rows_y;
	uint32_t rows;
	float *act;          /* a sparkline's activity, reused */
	uint32_t alloc_act;
};

void lanes_init(struct lanes *ln);
void lanes_release(struct lanes *ln);

/*
 * The chart to show, valid as model_timeline()'s: the focused lane's, or
 * model_chart() when merged. *which tells them apart (0 the merged chart,
 * else the lane's index + 1) for struct flame_source's key2.
 */
const struct chart *lanes_chart(struct lanes *ln, struct model *m, uint64_t *which);

/*
 * Draw the overview and the ruler at the top of area, over the time
 * [x0, x1) the chart shows; return the rows they took (the chart gets
 * the rest).
 */
int lanes_draw(struct lanes *ln, struct pane_ctx *ctx, const struct pane_area *area,
	       uint64_t x0, uint64_t x1);

/*
 * What the chart is of, as the title of its rule: "lane 2 of 5: comm
 * 1234" (escaped; the names of a tid that exec'd joined by "→", or "->"
 * without utf8) or "5 threads merged"; nothing for a lone lane.
 */
void lanes_title(struct lanes *ln, struct model *m, bool utf8, struct strbuf *out);

/*
 * Act on [, ], m and a click on the overview (in is the pointer for mouse
 * requests). Returns PANE_DONE when the chart to show changed (the owner
 * keeps the time range on it), PANE_IGNORED for any other request, and
 * for a click outside the overview.
 */
enum pane_reply lanes_request(struct lanes *ln, struct pane_ctx *ctx, enum request req,
			      const struct pane_input *in);

/*
 * Append a sparkline of act[n], each from 0 to 1, one cell each: eighth
 * blocks when utf8, else " .:-=+*#%@"; a blank only where act is 0, so a
 * thread that ran at all in a column shows there.
 */
void lanes_sparkline(struct strbuf *out, const float *act, uint32_t n, bool utf8);

#endif /* TFLAME_LANES_H */
