#ifndef TFLAME_ELFSYM_H
#define TFLAME_ELFSYM_H

/*
 * An index of one module's ELF symbols: address -> symbol by binary search,
 * and name -> symbols, built once from the symbol table.
 *
 * The symbolizer fills it from .symtab (or .dynsym, where a stripped file
 * has only that) for the addresses DWARF cannot answer. It knows nothing of
 * ELF files itself: elfsym_index_add() takes the symbols one by one, as the
 * table lists them, and elfsym_index_finish() sorts them and builds the
 * lookup table. Addresses are whatever the caller uses (the symbolizer's
 * are Dwfl addresses), as long as they all agree.
 *
 * Names are borrowed, not copied: the index points into the caller's
 * strings (the symbolizer's point into the ELF's string table, which
 * libelf keeps while the module is open), and they must outlive it.
 *
 * Extents. A symbol with a size covers [start, start + size). A symbol with
 * none (hand-written assembly, linker markers) reaches to the next symbol's
 * start, but never past its limit (the end of its section): at the end of
 * a section it covers up to there, and a marker right at the end covers
 * nothing. A zero-size symbol that starts inside a sized one is a label in
 * that function: it keeps its name and extent (elfsym_index_name_covers()
 * finds it) but lookups never choose it, as libdwfl's dwfl_module_addrinfo()
 * does not. An address past a sized symbol's end that no other symbol
 * covers belongs to no one: alignment padding, or code the table does not
 * name. (addr2line from binutils gives it to the nearest symbol before it.)
 *
 * Which symbol an address gets. Symbols at one start are aliases of each
 * other (memcpy and __memcpy_avx_unaligned); they sit together in the
 * sorted array, in order of preference: sized before zero-size, then
 * GLOBAL before WEAK before LOCAL (before any other binding), then the
 * smaller size, then the table's own order. Where extents of different
 * starts overlap (a local symbol inside a global one), the address takes,
 * among the symbols covering it: a sized non-local one, else a sized local
 * one, else a zero-size one; the latest start among those; then the order
 * above. This is libdwfl's choice up to the cases where its own answer
 * depends on the order of the table.
 *
 * Cost. Building sorts compact (start, symbol) keys with a radix sort, a
 * pass for each byte in which the starts differ, then sweeps them once:
 * O(n) for n symbols, with one allocation per array, none per symbol,
 * and the symbols sorted in place: on a VM, touching fresh memory (a page
 * fault a page) costs more than the work.
 * A lookup is a binary search, O(log n). The name -> symbol table is only
 * built by the first elfsym_index_name_covers() call, in O(n) (hashes
 * sorted by the same radix sort); each call then costs O(log n + symbols of
 * that name), and a name found among the aliases at addr costs no table at
 * all. No lookup scans the table.
 *
 * An index is plain data: one thread may use it at a time; indices share
 * nothing.
 */

#include <stdbool.h>
#include <stdint.h>

struct tf_error;

/* "No symbol", in symbol indices. */
#define ELFSYM_NONE UINT32_MAX

/* One symbol as the table gives it, for elfsym_index_add(). */
struct elfsym_def {
	const char *name;   /* not empty; borrowed, must outlive the index */
	uint64_t start;     /* its address */
	uint64_t size;      /* 0 when it has none */
	uint64_t limit;     /* a zero-size symbol ends here at the latest */
	const char *file;   /* a local's STT_FILE name, or NULL; borrowed */
	unsigned char bind; /* STB_LOCAL, STB_GLOBAL, STB_WEAK, ... */
};

/* A symbol in the index. */
struct elfsym {
	uint64_t start, end;  /* its extent [start, end); may be empty */
	const char *name;     /* the caller's string (elfsym_def) */
	const char *file;     /* ditto; NULL when none */
	uint32_t order;       /* its place among the elfsym_index_add() calls */
	unsigned char bind;
	bool sized;           /* it had a size */
	bool label;           /* zero-size, starts inside a sized symbol */
};

/*
 * The lookup table: the address space cut into ranges, each from its start
 * to the next range's start, with the symbol an address there resolves to.
 * The last range runs to the end of the address space and has no symbol.
 */
struct elfsym_range {
	uint64_t start;
	uint32_t sym; /* index into syms, or ELFSYM_NONE */
};

/* A sort key and the symbol it stands for. */
struct elfsym_key {
	uint64_t key;
	uint32_t sym;
};

struct elfsym_index {
	struct elfsym *syms;         /* by start, then preference (see above) */
	uint32_t nr_syms, alloc_syms;
	struct elfsym_range *ranges; /* by start; none before finishing */
	uint32_t nr_ranges;
	/*
	 * For every symbol, 32 bits of its name's hash above its index in
	 * syms, in ascending order: by hash, then the symbols' order; NULL
	 * until the first elfsym_index_name_covers().
	 */
	uint64_t *by_name;
	bool finished;
};

/* An empty index, to fill with elfsym_index_add(). */
void elfsym_index_init(struct elfsym_index *ix);
/* Free everything; ix may be initialised again. */
void elfsym_index_release(struct elfsym_index *ix);

/*
 * Make room for n more symbols, when the caller knows how many are coming:
 * the array then grows once. Dies on out of memory.
 */
void elfsym_index_reserve(struct elfsym_index *ix, uint32_t n);

/*
 * Add one symbol, before elfsym_index_finish(). Symbols with an empty name
 * and those that cannot hold code (sections, files, TLS, data objects
 * outside code sections) are the caller's to leave out. def->name and
 * def->file are borrowed: they must stay valid until release. Dies on out
 * of memory or past 2^32 - 2 symbols.
 */
void elfsym_index_add(struct elfsym_index *ix, const struct elfsym_def *def);
/* Sort the symbols and build the lookup table, once; then look up. */
void elfsym_index_finish(struct elfsym_index *ix);

/*
 * The symbol addr resolves to (see "Which symbol an address gets"), or
 * NULL when none covers it. The pointer stays valid until release.
 */
const struct elfsym *elfsym_index_lookup(const struct elfsym_index *ix,
					 uint64_t addr);

/*
 * The symbol perf names addr by: among the aliases at the start of the
 * symbol addr resolves to (labels aside), the one perf keeps of symbols
 * at one address (choose_best_symbol() in perf's symbol.c): sized before
 * zero-size, non-weak before weak, global before the others, fewer
 * leading underscores, the longer name, then the table's order. So
 * __libc_start_main@@GLIBC_2.34 rather than __libc_start_main_impl,
 * __snprintf rather than __GI___snprintf. NULL when no symbol covers
 * addr. The pointer stays valid until release.
 */
const struct elfsym *elfsym_index_perf_symbol(const struct elfsym_index *ix, uint64_t addr);

/*
 * Is name a symbol at addr? 1 when a symbol of that name covers addr (any
 * alias counts, and labels too), 0 when symbols of that name exist but
 * none covers it, -1 when the index has no symbol of that name. After
 * elfsym_index_finish() only. Unless an alias at addr has the name, the
 * first call builds the name table (hence ix is not const). Dies on out of
 * memory.
 */
int elfsym_index_name_covers(struct elfsym_index *ix, const char *name,
			     uint64_t addr);

/* A symbol's name: the string given to elfsym_index_add(). */
static inline const char *
elfsym_name(const struct elfsym_index *ix, const struct elfsym *s)
{
	(void)ix;
	return s->name;
}

/* A local symbol's source file (its STT_FILE), or NULL. */
static inline const char *
elfsym_file(const struct elfsym_index *ix, const struct elfsym *s)
{
	(void)ix;
	return s->file;
}

/*
 * Check the invariants: symbols in order, extents as defined above, the
 * name table (once built) holding every symbol once under its name's hash,
 * in order, and ranges sorted, each inside its symbol's extent, never a
 * label, ending with an empty range. Returns 0, or -1 with err set.
 */
int elfsym_index_check(const struct elfsym_index *ix, struct tf_error *err);

#endif /* TFLAME_ELFSYM_H */
