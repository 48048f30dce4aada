#ifndef TFLAME_LOAD_H
#define TFLAME_LOAD_H

/*
 * Loading a profile with a progress line and Ctrl-C, for the explorer
 * (before curses starts) and the text commands (cli_load()) alike.
 *
 * import_file() runs on a worker thread while the calling thread watches:
 * once the load has taken a moment, and only when stderr is a terminal,
 * it shows the progress line of progress.h on stderr: the share of the
 * file read (or the bytes, for a pipe or compressed input), the speed,
 * then the symbols phase. The line is fitted to the terminal's width,
 * asked again at every redraw, so that it never wraps and each redraw
 * ("\r", the line, erase to its end) overwrites the last; it is erased
 * before load_profile() returns, whatever the outcome, and before the
 * program dies of out of memory, SIGTERM, SIGHUP or a second Ctrl-C.
 *
 * Ctrl-C during the load cancels it through import_progress.cancel; a
 * second Ctrl-C kills the program at once. SIGTERM and SIGHUP kill it as
 * if never caught, once the line is erased; Ctrl-Z erases it and stops.
 * A job in the background draws nothing.
 */

#include <stdbool.h>

#include "tflame/import.h"

struct profile_set;
struct tf_error;

enum load_status {
	LOAD_OK,
	LOAD_FAILED,    /* err says why */
	LOAD_CANCELLED, /* the user pressed Ctrl-C */
};

/*
 * Load path (format NULL: probe) with opts (its progress member is
 * ignored: load_profile() uses its own). On LOAD_OK, *out is the new
 * profile set, owned by the caller. Prints nothing but the progress line,
 * which is gone when it returns. Call it with no die hook registered
 * (before the display starts): it registers its own for the time of the
 * load.
 */
enum load_status load_profile(const char *path, const char *format,
			      const struct import_options *opts, struct profile_set **out,
			      struct tf_error *err);

/*
 * For a comparison: load base and path as load_profile() does, both at
 * once, each on a thread of its own with its share of the CPUs for its
 * parser threads (unless opts says how many), one progress line for the
 * two; then put base's samples into path's set (diff.h: diff_join(), with
 * flags). Without DIFF_IGNORE_MODULE, when the two share under half their
 * weight by module and name but most by name (diff_overlap_by_name()),
 * they are matched by name alone (DIFF_NAMES_AUTO), with a warning in the
 * set that says so and why. On LOAD_OK,
 * *out is path's set with base's profiles too, and base's warnings, each
 * saying base's name and line. err says which file failed (its message
 * names it) or why the join did.
 */
enum load_status load_diff(const char *base, const char *path, const char *format,
			   const struct import_options *opts, unsigned flags,
			   struct profile_set **out, struct tf_error *err);

/*
 * Whether the user's locale is UTF-8, for the text commands, which print
 * in the C locale: it is set for a moment, so call it while no other
 * thread runs.
 */
bool load_locale_utf8(void);

#endif /* TFLAME_LOAD_H */
