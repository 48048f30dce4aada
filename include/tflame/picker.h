#ifndef TFLAME_PICKER_H
#define TFLAME_PICKER_H

/*
 * The thread picker: a page over the panes that lists the processes of
 * the profile shown and their threads (name, pid, tid, weight and share,
 * and a sparkline of the thread's activity over the profile's time),
 * heaviest first, each with a tick box. Typing filters the list (by name,
 * pid or tid, ignoring case); the requests of its keymap (keys.h) move,
 * tick or untick the row (a process: all its threads) or all the threads
 * shown, apply the ticks to every pane through model_set_threads(), or
 * cancel.
 *
 * Threads without a known process (perf script without pids) are listed
 * on their own, with no process row over them. The picker borrows the
 * model between picker_open() and picker_close(), and owns its mask.
 */

#include <stdbool.h>
#include <stdint.h>

#include "tflame/keys.h"
#include "tflame/prompt.h"

struct display;
struct keys;
struct model;
struct strbuf;

/* One line of the list. */
struct picker_row {
	bool proc;       /* a process (index into procs), else a thread (into threads) */
	uint32_t index;
};

struct thread_picker {
	bool *mask;              /* per thread of the set: ticked; owned */
	struct prompt filter;
	struct picker_row *rows; /* the lines that pass the filter; owned */
	uint32_t nr_rows, alloc_rows;
	uint32_t sel, top;       /* the selected line, the first on screen */
	int list_top, list_height; /* where the last draw put the list */
	/* the threads' sparklines (model_thread_activity()), for spark_cols columns */
	float *act;              /* owned; NULL before the first draw */
	uint32_t spark_cols;
	bool has_act;            /* the profile has times */
};

enum picker_result {
	PICKER_STAY,   /* keep the page open */
	PICKER_APPLY,  /* apply the mask (picker_mask()) and close */
	PICKER_CANCEL, /* close, changing nothing */
};

/* Open on m's current thread filter. Close with picker_close(). */
void picker_open(struct thread_picker *tp, struct model *m);
void picker_close(struct thread_picker *tp);

/*
 * Act on a request of the picker's keymap: for a click, y is the
 * pointer's row, else -1. Messages for the status line, if any, go to msg,
 * naming keys as k binds them.
 */
enum picker_result picker_request(struct thread_picker *tp, struct model *m,
				  enum request req, int y, const struct keys *k,
				  struct strbuf *msg);

/*
 * A key the picker's keymap does not bind: it edits the filter (prompt.h),
 * or, for Ctrl-C and Ctrl-G, cancels.
 */
enum picker_result picker_type(struct thread_picker *tp, struct model *m, int key);

/* The ticks to apply: one per thread of the set, NULL-free. */
const bool *picker_mask(const struct thread_picker *tp);

/* Draw the page on the whole screen but its last line. */
void picker_draw(struct thread_picker *tp, struct model *m, const struct display *d,
		 const struct keys *k);

/*
 * Say what the filter m holds keeps, for the tab bar: "all threads", "1
 * thread: xz 3728", "3 threads" (threads of the profile shown that have
 * samples). A thread that exec'd is named "sh→python3" ("sh->python3"
 * without utf8), escaped.
 */
void picker_describe(struct model *m, bool utf8, struct strbuf *out);

#endif /* TFLAME_PICKER_H */
