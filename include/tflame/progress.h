#ifndef TFLAME_PROGRESS_H
#define TFLAME_PROGRESS_H

/*
 * The progress line shown on stderr while a profile loads (load.h), as
 * text: a pure function of what the load has done and how wide the
 * terminal is, so that the unit tests can check every width.
 *
 *   tflame: …/bench/out/perf.txt: 45% of 1.1 GB, 800 MB/s (Ctrl-C cancels)
 *   tflame: standard input: 12.3 MB read, 40 MB/s (Ctrl-C cancels)
 *   tflame: perf.txt: symbols 45% (Ctrl-C cancels, --no-symbols skips this)
 *
 * The line never takes the terminal's last column, so that the cursor
 * never wraps and "\r" always redraws it in place. When it is too wide,
 * the least useful parts go first: the speed (and --no-symbols' hint),
 * then "(Ctrl-C cancels)", then the size; the path is shortened from the
 * left, keeping its end; on a very narrow terminal the path goes too.
 */

#include <stdbool.h>
#include <stdint.h>

#include "tflame/import.h"

struct strbuf;

/* A snapshot of a load, as the line shows it. */
struct progress_info {
	const char *name;        /* the input's path; "-" is standard input */
	enum import_phase phase;
	uint64_t bytes_done;     /* IMPORT_READING: bytes parsed so far */
	uint64_t bytes_total;    /* the input's size; 0: unknown (a pipe, compressed) */
	double seconds;          /* since the load started; <= 0: no speed shown */
	uint64_t work_done;      /* IMPORT_SYMBOLS: units done of work_total */
	uint64_t work_total;     /* 0: unknown, no percentage shown */
};

/*
 * Append the progress line of pi for a terminal of width columns to out:
 * at most width - 1 columns (nothing for a width below 2), with no
 * control character (the name is escaped, text.h) and no newline. utf8
 * says whether the terminal takes UTF-8: the path's ellipsis is "…" then,
 * else "...". Returns the columns appended.
 */
unsigned progress_format(struct strbuf *out, const struct progress_info *pi, unsigned width,
			 bool utf8);

#endif /* TFLAME_PROGRESS_H */
