#ifndef TFLAME_ERROR_H
#define TFLAME_ERROR_H

/*
 * Errors from the core and the importers.
 *
 * Functions that can fail return 0 on success or -1 on failure, and on
 * failure fill a caller-provided struct tf_error. Nothing below the command
 * line layer prints, exits or touches the terminal.
 *
 * A message is lowercase, has no final period, and says what is wrong first:
 * "cannot open perf.txt: No such file or directory". When the error belongs
 * to a place in an input file, the file and line are kept apart from the
 * text, so that an importer that parsed a slice of a file can fix the line
 * number up afterwards (see tf_error_shift_line()).
 */

#include <stddef.h>
#include <stdint.h>

struct tf_error {
	char *file;   /* input file name, or NULL; owned */
	uint64_t line; /* 1-based line in file, 0 when not about a line */
	char *msg;    /* the message, or NULL when no error was set; owned */
	char *text;   /* cache of tf_error_text(); owned */
};

#define TF_ERROR_INIT { NULL, 0, NULL, NULL }

void tf_error_init(struct tf_error *err);
void tf_error_release(struct tf_error *err);

/* Set the message (printf-style), replacing any previous error. Returns -1. */
int tf_error_set(struct tf_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* As tf_error_set(), and record the file and line the error is about. */
int tf_error_set_at(struct tf_error *err, const char *file, uint64_t line,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Set the file name if none is set yet (line numbers are kept). */
void tf_error_set_file(struct tf_error *err, const char *file);
/* Add delta to the line number, if there is one. */
void tf_error_shift_line(struct tf_error *err, uint64_t delta);
/* Move src into dst (dst's previous content is released; src is emptied). */
void tf_error_move(struct tf_error *dst, struct tf_error *src);

/*
 * The full text: "file:line: msg", "file: msg" or "msg". Returns a pointer
 * into a buffer owned by err, valid until err changes; "" if no error.
 */
const char *tf_error_text(struct tf_error *err);

#endif /* TFLAME_ERROR_H */
