#ifndef TFLAME_TUI_H
#define TFLAME_TUI_H

/*
 * The interactive explorer behind `tflame FILE`: runs the panes in curses
 * until the user quits. The command line (cmd_ui.c) parses the options,
 * asks tui_usable() and loads the profile (with a progress line, see
 * load.h); this module owns the terminal from then on and gives it back on
 * every exit path.
 */

#include <stdbool.h>
#include <stddef.h>

#include "tflame/import.h"

struct lens_spec;
struct conf;
struct profile_set;

/*
 * Before loading: set the locale the explorer runs in and check that there
 * is a terminal to run on (stdin_busy: the profile comes from stdin).
 * Returns EXIT_OK, or EXIT_USAGE after saying why not on stderr.
 */
int tui_usable(bool stdin_busy);

struct tui_options {
	const char *path;   /* the profile, "-" for stdin */
	/*
	 * The profile set loaded from path (load.h: load_profile(), or
	 * load_diff() for a comparison); tui_run() owns it from then on.
	 */
	struct profile_set *ps;
	/*
	 * A comparison: the profile path is compared with, or NULL.
	 * normalize scales the base to the shown total
	 * (model_set_diff_normalize()).
	 */
	const char *base;
	bool normalize;
	const struct lens_spec *lens; /* event, threads and search to start with */
	/* The options ps was loaded with: io.symbols_later starts the symbols job. */
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
 * Run the UI on o->ps, which it frees. Returns the exit status
 * (exitcode.h): EXIT_OK when the user quits, EXIT_INPUT when the profiles
 * cannot be compared, EXIT_USAGE when there is no terminal to run on or
 * no such event. Errors are printed on stderr, after the terminal is
 * restored.
 */
int tui_run(const struct tui_options *o);

#endif /* TFLAME_TUI_H */
