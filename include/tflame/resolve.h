#ifndef TFLAME_RESOLVE_H
#define TFLAME_RESOLVE_H

/*
 * Symbolizing a loaded profile: the frames a perf import kept addresses
 * for (import_options.symbols = SYMBOLS_RESOLVE) become what the module's
 * ELF and DWARF say is there (symbols.h):
 *  - the function. perf's name wins where perf printed one: `perf report`
 *    shows it, so a search for it must find it, though the module may
 *    know the function by an alias at the same address
 *    (__memcpy_avx512_unaligned_erms for __memmove_avx512_unaligned_erms);
 *    a frame perf could not name (FRAME_UNNAMED) takes the module's name;
 *  - the functions inlined at that address, innermost last, as frames of
 *    their own flagged FRAME_INLINED (perf's own "(inlined)" frames for the
 *    same address are dropped: the chain says it again). One that is the
 *    function around it under another name (profile_same_function(): the
 *    debug info names _IO_default_xsputn's own body
 *    __GI__IO_default_xsputn) folds into it;
 *  - a real function perf printed "(inlined)" with no module, because
 *    its debug info names it otherwise than its symbol (perf.c keeps its
 *    address and no module): the module is the first of the frames around
 *    it in a stack (its callee's, its caller's, for a leaf any module
 *    below it, for a stack of no module any module of the set, up to
 *    RESOLVE_LONE_MODULES) that has a function of that debug info name
 *    there, and the name perf report gives it, its ELF symbol
 *    (symbolizer_perf_name(): msort_with_tmp.part.0 for msort_with_tmp).
 *    Where none has it, the frame keeps perf script's name and no module;
 *  - on every such frame, the file and line where the function is defined
 *    (FRAME_HAS_LINE);
 *  - for every sample, source positions (profile.h): the line each frame
 *    of its stack was executing, or calling from.
 *
 * A caller's frame holds a return address: it is looked up one byte back,
 * inside the call, as perf report and pprof do. Frames no module answers
 * for keep perf's name. Names are demangled on the way when asked. One
 * warning on the set says how many addresses and modules could not be
 * resolved. Afterwards no frame carries an address.
 *
 * A module rebuilt since the recording would give wrong answers. Before
 * resolving, up to RESOLVE_CHECKS of perf's names per module are looked
 * up in the module's symbols; a module where at least RESOLVE_MIN_WRONG
 * of them are somewhere else, and more disagree than agree, is left
 * alone (its frames keep perf's names) and named in the warning. With
 * too few names to tell, the module is trusted: perf's names win anyway,
 * so a wrong guess costs at most the inline frames and lines of a
 * handful of addresses.
 *
 * The work can be split across threads (symbols_job_*), so that the
 * explorer shows perf's names at once and takes the resolved set when it
 * is ready.
 */

#include <stdbool.h>

#include "tflame/profile.h"

#define RESOLVE_CHECKS 16
#define RESOLVE_MIN_WRONG 3

struct symbols_job;

enum symbols_flags {
	SYMBOLS_DEMANGLE = 1 << 0, /* demangle every name (demangle.h) */
	/*
	 * Make ps ready to show at once (symbols_job_new()): its frames lose
	 * their addresses, so that frames perf named alike merge again, and
	 * are demangled as asked; the job keeps the addressed tables aside.
	 */
	SYMBOLS_SHOW_NOW = 1 << 1,
	/* Warn about each frame the rebuilt-module check found elsewhere. */
	SYMBOLS_VERBOSE = 1 << 2,
	/*
	 * No line tables (symbolizer_set_lines()): names, inline frames and
	 * each function's file:line, but no source positions; for commands
	 * that show no source lines, as line tables cost the most to read.
	 */
	SYMBOLS_NO_LINES = 1 << 3,
};

/*
 * Begin resolving the addresses of ps. flags are enum symbols_flags;
 * threads is how many threads look addresses up, one module at a time
 * each (0: one per online CPU).
 * Returns NULL when no frame of ps has an address: ps is then only
 * demangled, if asked. Without SYMBOLS_SHOW_NOW, ps must not be used
 * until symbols_job_apply() (the job reads it); with it, ps may be read
 * (not changed) by this thread while another runs the job.
 */
struct symbols_job *symbols_job_new(struct profile_set *ps, unsigned flags, int threads);

/*
 * The slow part, on any thread: check the modules and look every address
 * up (on the job's threads, modules biggest first, each module's libdw
 * data let go once its addresses are answered), then build the new
 * tables. o (may be NULL) gets the progress and is polled
 * for a cancel. Returns false if cancelled; the job can then only be
 * freed.
 */
bool symbols_job_run(struct symbols_job *job, const struct rewrite_opts *o);

/*
 * On the thread that owns ps, after symbols_job_run() returned true: put
 * the resolved tables into ps (profile_set_swap_tables()) and add the
 * warning, if any. Returns how many distinct addresses were resolved.
 *
 * With map (SYMBOLS_SHOW_NOW only), *map is a new array (free() it) with
 * an entry for every stack ps had before the call: the stack of ps after
 * it where the same call path goes on, ending in the same function (the
 * real function of its frame, before what was inlined into it), or
 * STACK_ROOT for a stack no sample went through. A view can keep its
 * selection and zoom through it.
 */
unsigned long symbols_job_apply(struct symbols_job *job, struct profile_set *ps,
				stack_id **map);

/* Free the job; NULL is allowed. */
void symbols_job_free(struct symbols_job *job);

/*
 * All of it on this thread: resolve ps's addressed frames in place (and
 * demangle, with SYMBOLS_DEMANGLE). o as for symbols_job_run(); a cancel
 * leaves ps with its addresses. Returns how many distinct addresses were
 * resolved.
 */
unsigned long profile_set_symbolize(struct profile_set *ps, unsigned flags, int threads,
				    const struct rewrite_opts *o);

#endif /* TFLAME_RESOLVE_H */
