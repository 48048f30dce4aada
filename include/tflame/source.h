#ifndef TFLAME_SOURCE_H
#define TFLAME_SOURCE_H

/*
 * Source lines: how much weight each line of source carries, and the
 * source files to show it in (the source pane, `tflame report --lines`).
 *
 * Positions. A sample's position is where its leaf frame executes, and
 * its callers' positions go up a parent chain (profile.h, "Source
 * positions"). A set that records positions (ps->nr_srcs > 1) gives each
 * sample one in p->src. Otherwise, and for a sample whose position is
 * SRC_ROOT, the positions are derived from the stack: each stack node is
 * at its frame's own file:line when the frame has FRAME_HAS_LINE (perf
 * -F+srcline, pprof, Chrome, speedscope), and at no line otherwise. A
 * position counts as a line when it has a file and a line above 0.
 *
 * For each line (file, line):
 *   self  = the weight of samples whose leaf position is that line;
 *   total = the weight of samples with that line anywhere on their
 *           position path, counted once per sample: a recursion through
 *           the same line counts once.
 *
 * source_lines_compute() sums the samples' weights per position once,
 * then works on the position tree alone: O(positions + samples), and no
 * recursion on stack depth.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tflame/functions.h"
#include "tflame/profile.h"

struct strbuf;
struct tf_error;

/* source_lines_compute(): every file, not one. */
#define SOURCE_ALL_FILES ((str_id)UINT32_MAX)

struct source_line {
	str_id file;
	uint32_t line;    /* 1-based */
	uint64_t self;
	uint64_t total;   /* >= self, > 0 */
	/*
	 * The frame executing the line on the heaviest path through it: the
	 * function whose line it is, for a report (an inlined callee's frame
	 * when the line is in the inlined code).
	 */
	frame_id frame;
};

struct source_lines {
	struct source_line *lines; /* owned; by file id, then line */
	uint32_t nr, alloc;
	uint64_t all;    /* weight of the samples the filter keeps */
	uint64_t placed; /* of which with a line (of the file asked for) on their path */
	bool recorded;   /* the set records positions; else all are derived from frames */
};

/*
 * Fill sl (embedded; release with source_lines_release()) with the lines
 * of p's samples that pass filter (NULL: all), of one file, or of every
 * file with SOURCE_ALL_FILES. Lines with no weight are left out.
 */
void source_lines_compute(struct source_lines *sl, const struct profile_set *ps,
			  const struct profile *p, const struct sample_filter *filter,
			  str_id file);
void source_lines_release(struct source_lines *sl);

/*
 * The lines of file in sl: returns the index of the first (in line
 * order) and sets *nr to how many; *nr is 0 when there is none.
 */
uint32_t source_lines_of_file(const struct source_lines *sl, str_id file, uint32_t *nr);

/* The entry for file:line, or NULL when that line has no weight. */
const struct source_line *source_lines_find(const struct source_lines *sl, str_id file,
					    uint32_t line);

/*
 * The hottest lines first: by self, then total (both descending), then
 * file name and line. Returns a malloc()ed array of sl->nr indexes into
 * sl->lines, for the caller to free.
 */
uint32_t *source_lines_top(const struct source_lines *sl, const struct profile_set *ps);

/*
 * The file where function func (a func_table id; frame_func maps frames
 * to functions) carries the most weight in sl: the file of its heaviest
 * lines, or STR_EMPTY when none of its lines has weight.
 */
str_id source_func_file(const struct source_lines *sl, const struct profile_set *ps,
			const func_id *frame_func, func_id func);

/*
 * Check sl: sorted, no line twice, known files and lines, 0 < self <=
 * total <= placed <= all. Returns 0, or -1 with err set.
 */
int source_lines_check(const struct source_lines *sl, const struct profile_set *ps,
		       struct tf_error *err);

/*
 * Source files on disk.
 *
 * A recorded path is looked for, in this order:
 *  1. under each DIR of where->dirs, in order: DIR/PATH, then DIR with
 *     ever shorter tails of PATH, down to DIR/BASENAME (for
 *     /build/x/src/a.c: DIR/build/x/src/a.c, DIR/x/src/a.c, DIR/src/a.c,
 *     DIR/a.c), so that DIR can be a checkout of the sources or a
 *     directory of loose files;
 *  2. PATH as recorded (relative to the current directory when relative);
 *  3. a relative PATH in where->profile_dir, the directory of the
 *     profile, where a build that recorded relative paths often is.
 * A file: URL (a JS profile's script, "file:///app/x.js") is first made
 * the path it names, percent escapes decoded; a node: URL (node's own
 * modules) names no file. The first regular,
 * readable, text file of at most SOURCE_MAX_BYTES wins. A directory,
 * device or FIFO is never opened for reading.
 */
#define SOURCE_MAX_BYTES ((size_t)16 << 20)

struct source_search {
	const char *const *dirs; /* --source-dir, in order; may be NULL */
	size_t nr_dirs;
	const char *profile_dir; /* or NULL */
};

struct source_file {
	char *path;       /* where it was found; owned */
	char *data;       /* the contents; owned */
	size_t len;
	size_t *starts;   /* line n (1-based) is data[starts[n - 1], starts[n]); owned */
	uint32_t nr_lines;
};

/*
 * Find and read the file recorded as path (see above) into sf (embedded;
 * release with source_file_release(), also after a failure). Returns 0,
 * or -1 with err set to why there is nothing to show: "not recorded" (no
 * file name in the profile), "built into node, not a file: URL", "no such
 * file: PATH", "permission denied:
 * PATH", "not a regular file: PATH", "binary file: PATH", "too large:
 * PATH (...)", where a failure of a file that exists wins over the paths
 * that do not. Paths in the message are raw: escape them to show them.
 */
int source_file_load(struct source_file *sf, const char *path,
		     const struct source_search *where, struct tf_error *err);
void source_file_release(struct source_file *sf);

/*
 * Append line n (1-based, <= sf->nr_lines) of sf to out, made safe for a
 * terminal: tabs expanded to tab stops every 8 columns, every control
 * character and invalid UTF-8 escaped as text_escape() does, and no
 * line ending.
 */
void source_file_line(const struct source_file *sf, uint32_t n, struct strbuf *out);

#endif /* TFLAME_SOURCE_H */
