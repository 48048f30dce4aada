#ifndef TFLAME_COLLAPSE_H
#define TFLAME_COLLAPSE_H

/*
 * Folded-stack output: `tflame collapse`.
 *
 * For perf script input this is a drop-in for FlameGraph's
 * stackcollapse-perf.pl: the same lines for the same flags, following the
 * rules in FORMATS.md (the comm as root frame, one event kept, each frame
 * name tidied the way the script does it). Load the input with
 * import_options.collapse_compat set, so that sample headers are read as
 * the script reads them. The deliberate differences from the script:
 *  - the last sample counts even with no blank line after it;
 *  - CRLF line ends are read (the script reads no sample of such a file);
 *  - a one-character comm is read;
 *  - a sample with its frame on the header line keeps its event, period
 *    and frame;
 *  - a module with parentheses of its own, "(/lib/x.so (deleted))", is
 *    read whole (the script cuts the name at it and keeps "+0x..");
 *  - with --srcline, a frame name holding "->" gets its srcline on every
 *    inlined piece (the script reads a further input line per piece).
 *
 * Any other input (folded stacks) is passed through normalised: frames
 * joined by ';' as they are, identical stacks merged, lines sorted by byte
 * order; a differential (before/after) file keeps both counts.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tflame/profile.h"

struct tf_error;

struct strbuf;

/*
 * Append f's inline chain to out, outermost first, as addr2line -i -f -s
 * -C prints it ("outer;middle;inner"), each piece with ":file:line" when
 * context is set; return false, appending nothing, when nothing resolves
 * f. data is collapse_options.expand_data.
 */
typedef bool collapse_expand_fn(void *data, const struct profile_set *ps,
				const struct frame *f, bool context, struct strbuf *out);

struct collapse_options {
	bool pid;     /* root frame comm-PID */
	bool tid;     /* root frame comm-PID/TID */
	bool kernel;  /* _[k] on kernel frames */
	bool jit;     /* _[j] on JIT frames */
	bool addrs;   /* [module <addr>] for unknown frames (load with keep_unknown_addrs) */
	bool srcline; /* append the srcline of perf script -F+srcline */
	/*
	 * Expand each frame with an address (load with SYMBOLS_KEEP) into its
	 * inline chain, as the script's --inline does with addr2line -i -f -s
	 * -C: "outer;middle;inner", names demangled with their parameters;
	 * with context, each as "name:file.c:12" (file base name, "??" and
	 * "?" when unknown). A frame nothing resolves is tidied as usual.
	 * The chain comes from expand (see collapse_expand_fn), which the
	 * caller supplies: the core does not call the symbolizer itself.
	 */
	bool inline_frames;
	bool context;
	collapse_expand_fn *expand;
	void *expand_data;
	const char *event_filter; /* the event to keep; NULL: the first one seen */
	/*
	 * Each line's frames leaf first ("c;b;a;comm"), for an inverted
	 * (bottom-up) flame graph: the lines are then merged and sorted as
	 * usual.
	 */
	bool inverted;
	/*
	 * collapse --diff --ignore-module: a frame perf could not name,
	 * which the script names after its module ("[prog]"), is written
	 * "[unknown]", so that two builds at two paths match there too.
	 * Every other frame is its name alone already.
	 */
	bool ignore_module;
};

struct collapse_result {
	const struct profile *kept;  /* the event kept (perf input), or NULL */
	uint64_t skipped_samples;    /* samples of other events, not written */
	size_t skipped_events;       /* how many other events there were */
	uint64_t lines;              /* lines written */
};

/*
 * Write ps as folded stacks to out. Returns 0, or -1 with err set (an
 * --event-filter that names no event in the file, or a write error).
 */
int collapse_write(const struct profile_set *ps, const struct collapse_options *opts,
		   FILE *out, struct collapse_result *res, struct tf_error *err);

/*
 * Append one perf frame name tidied as stackcollapse-perf.pl does
 * (FORMATS.md steps 2-8 and the annotations) to out. Returns false when the
 * script would skip the frame (its name starts with '('). java selects the
 * Java tidy rule (the root frame starts with "java"). A FRAME_UNNAMED frame
 * is read as the "[unknown]" perf printed, whatever the importer named it.
 */
bool collapse_tidy_frame(const struct profile_set *ps, const struct frame *f,
			 const struct collapse_options *opts, bool java,
			 struct strbuf *out);

/*
 * Append the root frame the script gives thread t's samples: its comm,
 * then "-PID" with with_pid, or "-PID/TID" with with_tid, spaces made
 * '_' ("?" for a pid it cannot show). The lens's group by process
 * (lens.h) names its process frames so, to agree with --pid.
 */
void collapse_root_name(const struct profile_set *ps, const struct thread *t, bool with_pid,
			bool with_tid, struct strbuf *out);

#endif /* TFLAME_COLLAPSE_H */
