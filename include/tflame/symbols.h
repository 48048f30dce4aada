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
 * Where DWARF does not know an address, the ELF symbol table names it
 * (.symtab, or .dynsym alone in a stripped file): each module's table is
 * read once into an index (elfsym.h says which symbol covers what), so a
 * lookup costs a binary search, not a walk of the table. An address past
 * the end of every symbol stays unresolved, as perf leaves it.
 *
 * Every answer is cached per (module, address), so asking again costs one
 * hash lookup. Names are returned as the module spells them (mangled);
 * demangling is the caller's business.
 *
 * Memory. An open module holds libdw's session (its decompressed debug
 * sections, the mapped files) and the indices built on it; the answers
 * hold only the symbolizer's own copies of their strings. A caller done
 * with a module lets the former go with symbolizer_close_module().
 *
 * Threads. A symbolizer is not thread-safe: one thread at a time may use
 * it. Symbolizers share nothing, so each thread may have its own and
 * resolve at the same time as the others, even in the same modules (each
 * opens its own libdw session of a module). This file and elfsym.c keep
 * no mutable state outside the symbolizer. Below them, libdw and libelf
 * keep the little global state there is safe or benign: errors are
 * per thread, libdwfl loads libdebuginfod once under pthread_once(), and
 * every dwfl_begin() sets libelf's version flag to the same value.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;
struct tf_error;
struct symbolizer;

/*
 * One frame of an answer. Strings are owned by the symbolizer and stay
 * valid until symbolizer_free(), whatever becomes of the module
 * (symbolizer_close_module()). file is NULL and line 0 when the module
 * has no line information for the frame, or when lines are off
 * (symbolizer_set_lines()) and the frame is the innermost.
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
	uint64_t probe_misses;       /* distinct ones symbolizer_probe() did not resolve */
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
 * symbolizer_resolve() for a guess being checked (is the function at addr
 * in this module?): an address not resolved does not count as one in the
 * summary (symbolizer_summary()), since another module may well have it.
 */
int symbolizer_probe(struct symbolizer *sym, const char *module, uint64_t addr,
		     struct sym_result *out);

/*
 * Can module tell nothing that perf did not? True when it has no DWARF,
 * in itself or in a debug file, and no symbol table but .dynsym: perf
 * read that same table when it named the module's frames, and its symbol
 * ends reach at least as far as ours (elfsym.h), so a lookup would only
 * give perf's names back, and an address perf left unnamed stays so. Then
 * symbolizer_resolve() resolves nothing in module from now on (each new
 * address counts as not resolved), and its symbols are never read. Only
 * the caller knows whether perf named any frame of module at all; without
 * one, it should not ask.
 */
bool symbolizer_defer_to_perf(struct symbolizer *sym, const char *module);

/*
 * Could the ELF file at path tell more than its .dynsym, which perf read
 * to name its frames? True when it has a .symtab, a .gnu_debugdata
 * section or DWARF, when a debug file may exist where libdwfl's search
 * looks, when debuginfod is asked, and when path cannot be read as ELF:
 * only false is certain. Where it is false, symbolizer_defer_to_perf()
 * holds for every module perf named a frame of, so perf's names are
 * final there and a parser need not keep their addresses. It reads the
 * section headers and a few access() calls; no libdw. Safe from several
 * threads.
 */
bool symbols_beyond_dynsym(const char *path);

/*
 * Is module still the file perf recorded? Given perf's name for the
 * function at file offset addr: 1 when an ELF symbol of that name covers
 * addr (any alias will do; one of no size covers up to the next symbol),
 * 0 when symbols of that name exist but none covers it or addr is outside
 * the file's segments (the file was rebuilt since), -1 when it cannot tell
 * (unreadable module, no such symbol, or one of the names perf makes up
 * for PLT entries, "memcpy@plt"). The module's symbol index answers it:
 * no walk of the table. A name found among the symbols at addr costs a
 * binary search; any other builds the module's name table on first use
 * (O(n) for n symbols), then costs a binary search.
 */
int symbolizer_name_at(struct symbolizer *sym, const char *module, uint64_t addr,
		       const char *name);
/*
 * The name perf gives the function at file offset addr of module: the
 * ELF symbol perf keeps among the aliases there
 * (elfsym_index_perf_symbol()), which may not be the debug info's name
 * for it (msort_with_tmp.part.0 for msort_with_tmp). NULL when no symbol
 * covers addr or module cannot be read or was rejected. The string is
 * the symbolizer's, valid until symbolizer_free().
 */
const char *symbolizer_perf_name(struct symbolizer *sym, const char *module, uint64_t addr);

/*
 * Treat module as changed since the recording: symbolizer_resolve()
 * resolves nothing in it from now on, and the summary names it.
 */
void symbolizer_reject_module(struct symbolizer *sym, const char *module);

/*
 * Whether to read line tables (the default) or not. With lines false,
 * frames[0] of an answer has no file and line (NULL, 0), not even the
 * STT_FILE name of an answer from the ELF symbols; everything else is as
 * with lines: the inline chain, the names, each frame's decl_file and
 * decl_line, and the call sites (file and line) of inlined frames.
 *
 * Why it costs less: with libdw 0.188, the first question about any file
 * name of a CU (dwarf_getsrcfiles(), dwarf_decl_file()) decodes the CU's
 * whole line program, as dwfl_module_getsrc() does, and on a system-wide
 * profile that is the largest cost after decompressing the debug
 * sections. So the names of declaration and call-site files, with lines
 * or without, come from the line program's header alone, read here the
 * way libdw reads it, to the same strings (and, unlike libdw 0.188, with
 * a name for DWARF 5's file 0, where Clang declares a CU's own
 * functions). Where that reader gives up (a form it does not know, as
 * DW_FORM_strx, which GCC and Clang do not put there), those file names
 * are NULL and their lines are kept.
 *
 * Answers already cached keep what they had: call it before resolving.
 */
void symbolizer_set_lines(struct symbolizer *sym, bool lines);

/*
 * Whether to read DWARF at all (the default) or the ELF symbol tables
 * alone (.symtab, else .dynsym, of the file or its debug file): with dwarf
 * false an answer is one frame, the ELF symbol covering the address, as
 * perf names it (among aliases, the one perf's choose_best_symbol()
 * takes: sized, not weak, global, fewest leading underscores, longest
 * name; a PLT entry is "name@plt", as perf synthesizes them), with no
 * inline chain and no file:line; the costliest
 * part of a module (its debug sections) is never read. For a reader that
 * names frames as perf does (perfdata_read.h). Call it before resolving.
 */
void symbolizer_set_dwarf(struct symbolizer *sym, bool dwarf);

/*
 * Close module: free its libdw session (libdw's memory, the decompressed
 * sections, the file mappings) and the DWARF, ELF symbol and file indices
 * built on it. Every answer already given for module stays valid, and
 * symbolizer_resolve() keeps answering those addresses from the cache
 * without opening anything. A new address in module, or a
 * symbolizer_name_at() question, opens it again (a full open, indices
 * rebuilt as they are used); if its file cannot be read any more, such
 * lookups are "not resolved". Nothing happens for a module never looked
 * up, unreadable, or already closed. A module rejected with
 * symbolizer_reject_module() stays rejected.
 */
void symbolizer_close_module(struct symbolizer *sym, const char *module);

/*
 * A guess at the nanoseconds symbolizer_resolve() will spend on lookups
 * addresses of module, from its file's headers and those of its separate
 * debug file: its symbols to index, its DWARF to read and to inflate.
 * Cheap (the headers alone, read without mapping the files); for
 * handing out the largest modules first.
 * A file that cannot be read counts for its lookups alone.
 */
uint64_t symbolizer_cost_hint(const char *module, uint64_t lookups);

/* The counters so far. */
void symbolizer_stats(const struct symbolizer *sym, struct sym_stats *st);

/*
 * Append one line (no newline) saying what could not be resolved, e.g.
 * "symbols: 3 addresses not resolved, 1 module unreadable (/x/libfoo.so)",
 * and return 1; append nothing and return 0 when everything resolved.
 */
int symbolizer_summary(const struct symbolizer *sym, struct strbuf *sb);
/*
 * The same line for n symbolizers that shared the work (resolve.c's
 * workers): counts add up, and each module is named once.
 */
int symbolizer_summary_many(const struct symbolizer *const *syms, size_t n, struct strbuf *sb);

/*
 * Check the cache's invariants, and those of each module's DWARF and ELF
 * symbol indices. Returns 0, or -1 with err set.
 */
int symbolizer_check(const struct symbolizer *sym, struct tf_error *err);

#endif /* TFLAME_SYMBOLS_H */
