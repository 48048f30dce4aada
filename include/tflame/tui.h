#ifndef TFLAME_TUI_H
#define TFLAME_TUI_H

/*
 * The interactive explorer behind `tflame FILE`: loads the profile (with a
 * progress line, see load.h), then runs the panes in curses until the user
 * quits. The command line (cmd_ui.c) parses the options; this module owns the
 * terminal from then on and gives it back on every exit path.
 */

#include <stdbool.h>
#include <stddef.h>

#include "tflame/import.h"

struct lens_spec;
struct conf;

struct tui_options {
	const char *path;   /* the profile, "-" for stdin */
	/*
	 * A comparison: the profile path is compared with (load.h:
	 * load_diff(), with diff_flags), or NULL. normalize scales the base
	 * to the shown total (model_set_diff_normalize()).
	 */
	const char *base;
	unsigned diff_flags;
	bool normalize;
	const char *format; /* importer name, or NULL to probe */
	const struct lens_spec *lens; /* event, threads and search to start with */
	struct import_options io;
	const char *const *source_dirs; /* --source-dir, in order (source.h) */
	size_t nr_source_dirs;
	/*
	 * The config file's keys, colours and settings (conf.h), and its
	 * warnings, shown at the start and listed on exit
	 */
	const struct conf *conf;
};

/*
 * Run the UI. Returns the exit status (exitcode.h): EXIT_OK when the user quits,
 * EXIT_INPUT when the file cannot be read, EXIT_USAGE when there is no
 * terminal to run on or no such event, EXIT_INTERRUPTED when the load
 * was cancelled. Errors are printed on stderr, after the terminal is
 * restored.
 */
int tui_run(const struct tui_options *o);

#endif /* TFLAME_TUI_H */
