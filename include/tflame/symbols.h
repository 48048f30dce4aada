#ifndef TFLAME_SYMBOLS_H
#define TFLAME_SYMBOLS_H

/*
 * The symbolizer: (module path, address) -> function name, inline chain
 * and file:line, read from the module's ELF and DWARF with libdw's offline
 * Dwfl.
 *
 * Address space. The address is the one `perf script` prints for a frame
 * in a user-space module: perf's map-relative address, i.e. the FILE
 * OFFSET into the ELF (ip - map start + map pgoff), not the ELF virtual
 * address. For PIE executables and most shared objects the two coincide
 * for text, but not in general: for a non-PIE executable perf prints
 * 0x1164 for a frame that addr2line knows as 0x401164 (checked with perf
 * 6.1 on x86-64). The symbolizer maps the offset to a virtual address
 * through the PT_LOAD program headers itself.
 *
 * Each module is opened once, on its first lookup; separate debug files are
 * found the usual way (.gnu_debuglink next to the file, in .debug/ and
 * under /usr/lib/debug, and by build-id). A module that cannot be opened,
 * or an address no symbol covers, is simply "not resolved": nothing is
 * printed; the counts are kept for one summary line (symbolizer_summary()).
 * Alignment padding between functions counts as outside any function
 * (addr2line gives it to the function before; perf never samples it).
 *
 * Every answer is cached per (module, address), so asking again costs one
 * hash lookup. Names are returned as the module spells them (mangled);
 * demangling is the caller's business.
 *
 * Not thread-safe: use one symbolizer per thread.
 */

#include <stddef.h>
#include <stdint.h>

struct strbuf;
struct tf_error;
struct symbolizer;

/*
 * One frame of an answer. Strings are owned by the symbolizer and stay
 * valid until symbolizer_free(). file is NULL and line 0 when the module
 * has no line information for the frame.
 */
struct sym_frame {
	const char *function;  /* never NULL in a resolved answer */
	const char *file;      /* source file as the compiler recorded it */
	unsigned line;         /* 1-based, 0 when unknown */
	const char *decl_file; /* where the function is defined, or NULL */
	unsigned decl_line;    /* its first line there, 0 when unknown */
};

/*
 * A resolved address: frames[0] is the innermost (inlined) function at the
 * address, with the address's own file:line; frames[i + 1] is the function
 * frames[i] was inlined into, with the file:line of that call site, as
 * `addr2line -f -i` prints them. The last frame is the real (out of line)
 * function. The array is owned by the symbolizer and stays valid until
 * symbolizer_free().
 */
struct sym_result {
	const struct sym_frame *frames;
	size_t nr_frames; /* 0 when not resolved */
};

/* Counters, for the summary line and for tests. */
struct sym_stats {
	uint64_t lookups;            /* symbolizer_resolve() calls */
	uint64_t cache_hits;         /* answered from the cache */
	uint64_t unresolved;         /* distinct (module, address) not resolved */
	uint32_t modules_opened;     /* modules read successfully */
	uint32_t modules_unreadable; /* modules that could not be read */
	uint32_t modules_changed;    /* rejected by symbolizer_reject_module() */
};

/* A new, empty symbolizer. Dies on out of memory. Free with symbolizer_free(). */
struct symbolizer *symbolizer_new(void);
/* Close every module and free every answer. NULL is allowed. */
void symbolizer_free(struct symbolizer *sym);

/*
 * Resolve the file offset addr (see "Address space" above) in the ELF file
 * at module. Fills *out and returns 1 when resolved; returns 0 and sets
 * out->nr_frames to 0 when not (unreadable module, no function at addr).
 * module is copied; the caller keeps its string.
 */
int symbolizer_resolve(struct symbolizer *sym, const char *module,
		       uint64_t addr, struct sym_result *out);

/*
 * Is module still the file perf recorded? Given perf's name for the
 * function at file offset addr: 1 when an ELF symbol of that name covers
 * addr (any alias will do), 0 when symbols of that name exist but none
 * covers it or addr is outside the file's segments (the file was rebuilt
 * since), -1 when it cannot tell (unreadable module, no such symbol).
 */
int symbolizer_name_at(struct symbolizer *sym, const char *module, uint64_t addr,
		       const char *name);
/*
 * Treat module as changed since the recording: symbolizer_resolve()
 * resolves nothing in it from now on, and the summary names it.
 */
void symbolizer_reject_module(struct symbolizer *sym, const char *module);

/* The counters so far. */
void symbolizer_stats(const struct symbolizer *sym, struct sym_stats *st);

/*
 * Append one line (no newline) saying what could not be resolved, e.g.
 * "symbols: 3 addresses not resolved, 1 module unreadable (/x/libfoo.so)",
 * and return 1; append nothing and return 0 when everything resolved.
 */
int symbolizer_summary(const struct symbolizer *sym, struct strbuf *sb);

/* Check the cache's invariants. Returns 0, or -1 with err set. */
int symbolizer_check(const struct symbolizer *sym, struct tf_error *err);

#endif /* TFLAME_SYMBOLS_H */
