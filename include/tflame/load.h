#ifndef TFLAME_LOAD_H
#define TFLAME_LOAD_H

/*
 * Loading a profile for the UI, before curses starts.
 *
 * import_file() runs on a worker thread while the calling thread watches:
 * once the load has taken a moment, it shows a progress line on stderr
 * (when stderr is a terminal): the percentage of the file for a plain
 * file, the bytes read for a pipe or compressed input, and the speed in
 * MB/s. Ctrl-C during the load cancels it through import_progress.cancel;
 * a second Ctrl-C kills the program at once.
 */

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
 * profile set, owned by the caller.
 */
enum load_status load_profile(const char *path, const char *format,
			      const struct import_options *opts, struct profile_set **out,
			      struct tf_error *err);

#endif /* TFLAME_LOAD_H */
