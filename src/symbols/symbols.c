#include "config.h"

#include "tflame/symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tflame/bsearch.h"
#include "tflame/debugcache.h"
#include "tflame/elfsym.h"
#include "tflame/error.h"
#include "tflame/hash.h"
#include "tflame/intern.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/* A PT_LOAD segment: file offsets [off, off + filesz) sit at vaddr. */
struct sym_load {
	uint64_t off, filesz, vaddr;
};

/*
 * A function DIE with code: a subprogram or an inlined instance. lo/hi
 * bound its ranges, for a cheap test before dwarf_haspc().
 */
struct sym_fn {
	Dwarf_Die die;
	Dwarf_Addr lo, hi;
	uint32_t parent; /* the enclosing function's index, or SYM_NO_FN */
	/* An outermost function's nested ones, once expanded: [nest, nest_end). */
	uint32_t nest, nest_end;
	bool expanded;
	/* Its ranges, when more than one: cu->ranges[range, range + nr_ranges). */
	uint32_t range, nr_ranges;
	/*
	 * What its frames say, read from the DIE the first time an address
	 * falls in it (sym_fn_read()): the addresses of a profile fall in few
	 * functions, and libdw's attribute lookups were most of a lookup's
	 * cost. Strings are in sym->strings.
	 */
	bool read;
	bool inlined;          /* an inlined instance: call_file/call_line hold */
	const char *name;      /* as sym_die_name() */
	const char *decl_file; /* as sym_decl_file() */
	unsigned decl_line;
	const char *call_file; /* where it was inlined, in its parent */
	unsigned call_line;
};

/* One range of a function with several (hot and cold parts). */
struct sym_range {
	Dwarf_Addr lo, hi;
};

/* One address range of an outermost function, for the binary search. */
struct sym_top {
	Dwarf_Addr lo, hi;
	uint32_t fn;
};

#define SYM_NO_FN UINT32_MAX

/* One address range of a unit, for a module without .debug_aranges. */
struct sym_unit {
	Dwarf_Addr lo, hi;
	Dwarf_Off die; /* the unit's DIE */
};

/*
 * The function DIEs of one CU. The outermost come first, in DIE order;
 * each one's nested functions are appended the first time an address
 * falls in it (sym_cu_expand()), in DIE order, parents before children.
 */
struct sym_cu {
	Dwarf_Off off; /* of the CU DIE */
	struct sym_fn *fns;
	size_t nr_fns, alloc_fns;
	size_t nr_outer; /* fns[0, nr_outer) are the outermost */
	struct sym_range *ranges;
	size_t nr_ranges, alloc_ranges;
	/*
	 * The ranges of the outermost functions, sorted by start. They do not
	 * overlap in sane DWARF; when they do (tops_overlap), lookups scan
	 * every function as before.
	 */
	struct sym_top *tops;
	size_t nr_tops;
	bool tops_overlap;
};

/* One file of a line program's header (see sym_filetab_read()). */
struct sym_srcfile {
	const char *name;  /* as recorded, borrowed from the sections; NULL: none */
	uint64_t dir;      /* index into the directories */
	const char *path;  /* with its directory, in sym->strings; NULL until asked */
};

/* The directories and files of one line program, read from its header. */
struct sym_filetab {
	Dwarf *dbg;                /* whose .debug_line */
	Dwarf_Off off;             /* the program's offset there */
	const char **dirs;         /* dirs[0] is NULL when DWARF < 5 has no comp dir */
	size_t nr_dirs;
	struct sym_srcfile *files; /* by file index */
	size_t nr_files;           /* 0 when the header could not be read */
};

/* The sections of one Dwarf that a line program header refers to. */
struct sym_dwsecs {
	Dwarf *dbg;
	Elf_Data *line, *line_str, *str;
	bool le; /* little-endian */
};

struct sym_module {
	char *path;            /* owned */
	uint64_t hash;         /* of path */
	Dwfl *dwfl;            /* one session per module; NULL if unreadable or closed */
	Dwfl_Module *mod;      /* borrowed from dwfl */
	GElf_Addr bias;        /* Dwfl address = ELF vaddr + bias */
	struct sym_load *loads;
	size_t nr_loads;
	bool changed;          /* rejected: not the file perf recorded */
	bool perf_knows;       /* symbolizer_defer_to_perf(): nothing to look up */
	bool unreadable;       /* the first open failed */
	bool closed;           /* by symbolizer_close_module(); opened again on demand */
	struct sym_cu *cus;    /* indexed on first use */
	size_t nr_cus, alloc_cus, last_cu;
	struct elfsym_index elf; /* its ELF symbols, once elf_indexed */
	bool elf_indexed;
	/* Without .debug_aranges: its units' ranges (sym_addrdie()). */
	struct sym_unit *units;
	size_t nr_units;
	bool units_indexed;
	/* The file tables of line programs, read from their headers. */
	struct sym_filetab *filetabs;
	size_t nr_filetabs, alloc_filetabs, last_filetab;
	struct sym_dwsecs *dwsecs; /* per Dwarf (the module's, its dwz file's) */
	size_t nr_dwsecs, alloc_dwsecs;
	/*
	 * Without DWARF (symbolizer_set_dwarf()): the PLT entries perf names
	 * "name@plt", plt_entry bytes each from plt_start (a Dwfl address),
	 * in the order of the PLT relocations; NULL for an entry of no name.
	 */
	const char **plt_names;
	size_t nr_plt;
	uint64_t plt_start, plt_entry;
	bool plt_read;
};

/* A cached answer: frames is owned and never moves once stored. */
struct sym_entry {
	uint32_t module;
	uint64_t addr;
	struct sym_frame *frames;
	size_t nr_frames;
};

struct symbolizer {
	struct intern strings;     /* every name and file name */
	struct sym_module *modules;
	size_t nr_modules, alloc_modules;
	struct sym_entry *entries;
	size_t nr_entries, alloc_entries;
	uint32_t *slots;           /* entry index + 1; 0 is empty */
	size_t mask;               /* slot count - 1 */
	size_t last_module;        /* perf output comes in runs of one module */
	struct sym_stats stats;
	struct strbuf scratch;     /* frames being built */
	struct strbuf path;        /* a file name being put together */
	bool lines;                /* read line tables (symbolizer_set_lines()) */
	bool no_dwarf;             /* ELF symbols alone (symbolizer_set_dwarf()) */
};

static void sym_module_close(struct sym_module *m);

/*
 * libdwfl's search for a separate debug file, the cache first
 * (debugcache.h). Asked before libdwfl's own search, which would open
 * the compressed file and keep it whatever this returned.
 *
 * Most modules of a system-wide profile have no debug file, and libdwfl's
 * search then ends with debuginfod, which loads libcurl and its TLS
 * libraries on the first such module (20 ms of CPU, as much as resolving
 * libc) and begins a client on each, only to be told that no server is
 * set. Without a server, and with nothing at any place the search looks
 * (debug_file_may_exist()), there is nothing to find: no search.
 */
static int
sym_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
		   const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		   char **debuginfo_file_name)
{
	const unsigned char *id = NULL;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &id, &vaddr), fd;
	/*
	 * libdwfl asks here twice: for the module's debug file (its
	 * .gnu_debuglink, which has a CRC, or none), and then, when that
	 * file's DWARF was partly moved by dwz into a multifile, for that one
	 * (its .gnu_debugaltlink: a name, no CRC). The cache holds files by
	 * the module's build-id: for the multifile it would give the debug
	 * file itself, whose references into the multifile then read the
	 * wrong file (the inline frames lost their names). The multifile is
	 * left to libdwfl's search, which follows the link.
	 */
	bool altlink = debuglink_file && !debuglink_crc;

	if (n > 0 && !altlink && (fd = debugcache_find(id, (size_t)n, debuginfo_file_name)) >= 0)
		return fd;
	if (!debuginfod_wanted() &&
	    !debug_file_may_exist(file_name, debuglink_file, id, n > 0 ? (size_t)n : 0)) {
		errno = 0; /* "not found", as libdwfl's own search says it */
		return -1;
	}
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Callbacks sym_offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = sym_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct symbolizer *
symbolizer_new(void)
{
	struct symbolizer *sym = xcalloc(1, sizeof(*sym));

	intern_init(&sym->strings);
	sym->mask = 1023;
	sym->slots = xzalloc_table(sym->mask + 1, sizeof(*sym->slots));
	strbuf_init(&sym->scratch, 0);
	strbuf_init(&sym->path, 0);
	sym->lines = true;
	return sym;
}

void
symbolizer_free(struct symbolizer *sym)
{
	size_t i;

	if (!sym)
		return;
	for (i = 0; i < sym->nr_modules; i++) {
		sym_module_close(&sym->modules[i]);
		free(sym->modules[i].path);
		free(sym->modules[i].loads);
	}
	for (i = 0; i < sym->nr_entries; i++)
		free(sym->entries[i].frames);
	free(sym->modules);
	free(sym->entries);
	free(sym->slots);
	intern_release(&sym->strings);
	strbuf_release(&sym->scratch);
	strbuf_release(&sym->path);
	free(sym);
}

/*
 * Open m's Dwfl session; the first time, read its PT_LOAD segments too.
 * Returns false, with m->dwfl NULL, when the file cannot be read.
 */
static bool
sym_module_open(struct sym_module *m)
{
	Elf *elf;
	size_t i, nr;

	m->dwfl = dwfl_begin(&sym_offline_callbacks);
	if (!m->dwfl)
		return false;
	dwfl_report_begin(m->dwfl);
	m->mod = dwfl_report_offline(m->dwfl, m->path, m->path, -1);
	if (dwfl_report_end(m->dwfl, NULL, NULL) != 0 || !m->mod)
		goto fail;
	elf = dwfl_module_getelf(m->mod, &m->bias);
	if (!elf)
		goto fail;
	if (m->nr_loads)
		return true; /* opened again: the segments are known */
	if (elf_getphdrnum(elf, &nr) != 0)
		goto fail;
	m->loads = xcalloc(nr ? nr : 1, sizeof(*m->loads));
	for (i = 0; i < nr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		m->loads[m->nr_loads].off = ph.p_offset;
		m->loads[m->nr_loads].filesz = ph.p_filesz;
		m->loads[m->nr_loads].vaddr = ph.p_vaddr;
		m->nr_loads++;
	}
	if (m->nr_loads)
		return true;
fail:
	dwfl_end(m->dwfl);
	m->dwfl = NULL;
	m->mod = NULL;
	return false;
}

/*
 * Is m open, to be read? A closed module is opened again here (and stays
 * unreadable for this lookup if its file went away meanwhile).
 */
static bool
sym_module_ready(struct sym_module *m)
{
	if (m->closed) {
		m->closed = false;
		sym_module_open(m);
	}
	return m->dwfl != NULL;
}

/* The index of module path, or SIZE_MAX when it was never seen. */
static size_t
sym_module_find(struct symbolizer *sym, const char *path, uint64_t h)
{
	struct sym_module *m;

	if (sym->last_module < sym->nr_modules) {
		m = &sym->modules[sym->last_module];
		if (m->hash == h && !strcmp(m->path, path))
			return sym->last_module;
	}
	for (size_t i = 0; i < sym->nr_modules; i++) {
		m = &sym->modules[i];
		if (m->hash == h && !strcmp(m->path, path))
			return sym->last_module = i;
	}
	return SIZE_MAX;
}

/* The index of module path, opening it on first sight. */
static size_t
sym_module_get(struct symbolizer *sym, const char *path)
{
	size_t len = strlen(path);
	uint64_t h = hash_bytes(path, len, 0);
	size_t i = sym_module_find(sym, path, h);
	struct sym_module *m;

	if (i != SIZE_MAX)
		return i;
	if (sym->nr_modules == sym->alloc_modules) {
		sym->alloc_modules = sym->alloc_modules ? 2 * sym->alloc_modules : 8;
		sym->modules = xreallocarray(sym->modules, sym->alloc_modules,
					     sizeof(*sym->modules));
	}
	m = &sym->modules[sym->nr_modules];
	memset(m, 0, sizeof(*m));
	m->path = xstrndup(path, len);
	m->hash = h;
	if (sym_module_open(m)) {
		sym->stats.modules_opened++;
	} else {
		m->unreadable = true;
		sym->stats.modules_unreadable++;
	}
	return sym->last_module = sym->nr_modules++;
}

static uint64_t
sym_key_hash(uint32_t module, uint64_t addr)
{
	return hash_pair(module, addr);
}

static void
sym_slots_grow(struct symbolizer *sym)
{
	size_t mask = 2 * sym->mask + 1, i;
	uint32_t *slots = xzalloc_table(mask + 1, sizeof(*slots));

	for (i = 0; i < sym->nr_entries; i++) {
		const struct sym_entry *e = &sym->entries[i];
		size_t s = sym_key_hash(e->module, e->addr) & mask;

		while (slots[s])
			s = (s + 1) & mask;
		slots[s] = (uint32_t)(i + 1);
	}
	free(sym->slots);
	sym->slots = slots;
	sym->mask = mask;
}

static const char *
sym_str(struct symbolizer *sym, const char *s)
{
	if (!s)
		return NULL;
	return intern_get(&sym->strings, intern_str(&sym->strings, s, strlen(s)));
}

/* The name of a function DIE: its linkage name if any (as addr2line). */
static const char *
sym_die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name,
						     &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(
			die, DW_AT_MIPS_linkage_name, &attr));
	if (!name)
		name = dwarf_diename(die);
	return name;
}

static int
sym_is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* Append a frame to sym->scratch; function and file are interned here. */
static void
sym_push(struct symbolizer *sym, const char *function, const char *file, unsigned line,
	 const char *decl_file, unsigned decl_line)
{
	struct sym_frame f;

	f.function = sym_str(sym, function);
	f.file = sym_str(sym, file);
	f.line = line;
	f.decl_file = decl_file;
	f.decl_line = decl_line;
	strbuf_add(&sym->scratch, &f, sizeof(f));
}

static int
sym_top_cmp(const void *a, const void *b)
{
	const struct sym_top *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The sorted ranges of the outermost functions. */
static void
sym_cu_index(struct sym_cu *cu)
{
	size_t alloc = 0;

	for (size_t i = 0; i < cu->nr_outer; i++) {
		Dwarf_Addr base, s, e;
		ptrdiff_t r = 0;

		while ((r = dwarf_ranges(&cu->fns[i].die, r, &base, &s, &e)) > 0) {
			if (s >= e)
				continue;
			if (cu->nr_tops == alloc) {
				alloc = alloc ? 2 * alloc : 8;
				cu->tops = xreallocarray(cu->tops, alloc, sizeof(*cu->tops));
			}
			cu->tops[cu->nr_tops].lo = s;
			cu->tops[cu->nr_tops].hi = e;
			cu->tops[cu->nr_tops].fn = (uint32_t)i;
			cu->nr_tops++;
		}
	}
	if (cu->nr_tops > 1)
		qsort(cu->tops, cu->nr_tops, sizeof(*cu->tops), sym_top_cmp);
	for (size_t i = 1; i < cu->nr_tops; i++)
		if (cu->tops[i].lo < cu->tops[i - 1].hi)
			cu->tops_overlap = true;
}

/*
 * Record die as a function of cu if it is one with code; returns its
 * index, or SYM_NO_FN.
 */
static uint32_t
sym_cu_add(struct sym_cu *cu, Dwarf_Die *die, uint32_t parent)
{
	Dwarf_Addr base, lo = (Dwarf_Addr)-1, hi = 0, s, e;
	ptrdiff_t r = 0;
	struct sym_fn *fn;
	size_t first = cu->nr_ranges;

	if (!sym_is_function(die))
		return SYM_NO_FN;
	/*
	 * A declaration or an abstract instance has no code. Asking the
	 * abbreviation is cheap; dwarf_ranges() decodes the DIE's attributes
	 * to find none.
	 */
	if (!dwarf_hasattr(die, DW_AT_low_pc) && !dwarf_hasattr(die, DW_AT_ranges))
		return SYM_NO_FN;
	while ((r = dwarf_ranges(die, r, &base, &s, &e)) > 0) {
		if (s >= e)
			continue;
		if (s < lo)
			lo = s;
		if (e > hi)
			hi = e;
		ALLOC_GROW(cu->ranges, cu->nr_ranges, cu->alloc_ranges);
		cu->ranges[cu->nr_ranges].lo = s;
		cu->ranges[cu->nr_ranges].hi = e;
		cu->nr_ranges++;
	}
	if (lo >= hi)
		return SYM_NO_FN;
	/* One range is [lo, hi) itself: nothing to keep. */
	if (cu->nr_ranges - first == 1)
		cu->nr_ranges = first;
	if (cu->nr_fns == cu->alloc_fns) {
		cu->alloc_fns = cu->alloc_fns ? 2 * cu->alloc_fns : 8;
		cu->fns = xreallocarray(cu->fns, cu->alloc_fns, sizeof(*cu->fns));
	}
	fn = &cu->fns[cu->nr_fns];
	memset(fn, 0, sizeof(*fn));
	fn->die = *die;
	fn->lo = lo;
	fn->hi = hi;
	fn->parent = parent;
	fn->range = (uint32_t)first;
	fn->nr_ranges = (uint32_t)(cu->nr_ranges - first);
	return (uint32_t)cu->nr_fns++;
}

/*
 * Can code sit below a DIE of this tag? Functions, blocks and scopes hold
 * functions (inlined instances, GNU C nested functions); parameters,
 * variables, call sites and types do not (a C++ class holds its methods'
 * declarations; their code is described outside it, in the namespace).
 * The walk does not enter the rest, which is most of a CU's DIEs.
 */
static bool
sym_may_hold_code(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_entry_point:
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
	case DW_TAG_namespace:
	case DW_TAG_module:
		return true;
	default:
		return false;
	}
}

/*
 * Walk the DIEs below start, which is one of them, in DIE order: each
 * function with code is recorded with the function it sits in. Only the
 * scopes that may hold code are entered (sym_may_hold_code()); with outer
 * true, only namespaces are: a function is recorded but not entered
 * (sym_cu_expand() does that when an address falls in it). Keeps its own stack: no recursion on DIE
 * depth.
 */
static void
sym_cu_walk(struct sym_cu *cu, Dwarf_Die *start, uint32_t parent, bool outer)
{
	struct dstack {
		Dwarf_Die die;
		uint32_t fn; /* innermost function at or above die */
	} *stack;
	size_t depth = 1, alloc = 64;
	Dwarf_Die child;

	stack = xreallocarray(NULL, alloc, sizeof(*stack));
	stack[0].die = *start;
	stack[0].fn = parent;
	while (depth) {
		struct dstack *top = &stack[depth - 1];
		Dwarf_Die *die = &top->die;
		int tag = dwarf_tag(die);
		uint32_t fn = sym_cu_add(cu, die, top->fn);
		/* Outside functions, only namespaces are entered. */
		bool enter = outer ? tag == DW_TAG_namespace || tag == DW_TAG_module
				   : sym_may_hold_code(tag);

		if (fn == SYM_NO_FN)
			fn = top->fn;
		/* Visit the children next, then the siblings. */
		if (enter && dwarf_haschildren(die) > 0 && dwarf_child(die, &child) == 0) {
			if (depth == alloc) {
				alloc *= 2;
				stack = xreallocarray(stack, alloc, sizeof(*stack));
			}
			stack[depth].die = child;
			stack[depth].fn = fn;
			depth++;
			continue;
		}
		while (depth && dwarf_siblingof(&stack[depth - 1].die,
						&stack[depth - 1].die) != 0)
			depth--;
	}
	free(stack);
}

/*
 * Index the outermost function DIEs of a CU once, and each one's nested
 * functions when first needed. dwarf_getscopes() and
 * dwarf_getscopes_die(), which eu-addr2line -i uses, walk the CU's DIE
 * tree from the top on every call: over 200 us an address on a large CU.
 * Here a lookup only compares address bounds. The first walk skips the
 * insides of functions and of types; a function's inside is walked once,
 * when an address falls in it: a profile touches few of a CU's functions.
 */
static void
sym_cu_build(struct sym_cu *cu, Dwarf_Die *cudie)
{
	Dwarf_Die child;

	if (dwarf_child(cudie, &child) == 0)
		sym_cu_walk(cu, &child, SYM_NO_FN, true);
	cu->nr_outer = cu->nr_fns;
	sym_cu_index(cu);
}

/* The nested functions of outermost function i, walked on first use. */
static void
sym_cu_expand(struct sym_cu *cu, uint32_t i)
{
	Dwarf_Die child, die = cu->fns[i].die;

	if (cu->fns[i].expanded)
		return;
	cu->fns[i].expanded = true;
	cu->fns[i].nest = (uint32_t)cu->nr_fns;
	if (dwarf_haschildren(&die) > 0 && dwarf_child(&die, &child) == 0)
		sym_cu_walk(cu, &child, i, false);
	cu->fns[i].nest_end = (uint32_t)cu->nr_fns;
}

static bool
sym_top_before(const void *elem, const void *key)
{
	return ((const struct sym_top *)elem)->lo <= *(const Dwarf_Addr *)key;
}

/* Does the code of f hold pc? */
static bool
sym_fn_has(const struct sym_cu *cu, const struct sym_fn *f, Dwarf_Addr pc)
{
	if (pc < f->lo || pc >= f->hi)
		return false;
	if (!f->nr_ranges)
		return true;
	for (uint32_t i = f->range; i < f->range + f->nr_ranges; i++)
		if (pc >= cu->ranges[i].lo && pc < cu->ranges[i].hi)
			return true;
	return false;
}

/*
 * The innermost function under outermost function i holding pc (i
 * itself included), or fn when none does. Nested ranges come later in
 * DIE order: the last match is innermost.
 */
static uint32_t
sym_cu_find_in(struct sym_cu *cu, uint32_t i, Dwarf_Addr pc, uint32_t fn)
{
	if (sym_fn_has(cu, &cu->fns[i], pc))
		fn = i;
	sym_cu_expand(cu, i);
	for (uint32_t j = cu->fns[i].nest; j < cu->fns[i].nest_end; j++)
		if (sym_fn_has(cu, &cu->fns[j], pc))
			fn = j;
	return fn;
}

/*
 * The innermost function of cu holding pc, or SYM_NO_FN: a binary search
 * for the outermost function, then a scan of the functions nested in it.
 */
static uint32_t
sym_cu_find(struct sym_cu *cu, Dwarf_Addr pc)
{
	uint32_t fn = SYM_NO_FN;
	size_t lo;

	if (cu->tops_overlap) {
		for (size_t i = 0; i < cu->nr_outer; i++)
			fn = sym_cu_find_in(cu, (uint32_t)i, pc, fn);
		return fn;
	}
	/* The first top starting after pc: pc is in the one before. */
	lo = bsearch_first(cu->tops, cu->nr_tops, sizeof(*cu->tops), &pc, sym_top_before);
	if (!lo || pc >= cu->tops[lo - 1].hi)
		return SYM_NO_FN;
	return sym_cu_find_in(cu, cu->tops[lo - 1].fn, pc, SYM_NO_FN);
}

static struct sym_cu *
sym_cu_get(struct sym_module *m, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	struct sym_cu *cu;
	size_t i;

	if (m->last_cu < m->nr_cus && m->cus[m->last_cu].off == off)
		return &m->cus[m->last_cu];
	for (i = 0; i < m->nr_cus; i++)
		if (m->cus[i].off == off)
			return &m->cus[m->last_cu = i];
	if (m->nr_cus == m->alloc_cus) {
		m->alloc_cus = m->alloc_cus ? 2 * m->alloc_cus : 16;
		m->cus = xreallocarray(m->cus, m->alloc_cus, sizeof(*m->cus));
	}
	cu = &m->cus[m->nr_cus];
	memset(cu, 0, sizeof(*cu));
	cu->off = off;
	sym_cu_build(cu, cudie);
	m->last_cu = m->nr_cus++;
	return cu;
}

/*
 * File names for DW_AT_decl_file and DW_AT_call_file, read from the
 * header of the CU's line program. libdw 0.188 decodes a CU's whole line
 * program to name any of its files (dwarf_getsrcfiles() and
 * dwarf_decl_file() call dwarf_getsrclines()), which, without lines
 * (symbolizer_set_lines()), would cost as much as the lines themselves:
 * the largest cost of symbolizing after decompression. The names are all
 * in the header, read here alone, once per program, the way libdw reads
 * it so that the names come out the same: a relative name is put after
 * its directory and a slash; DWARF 2 to 4 number files from 1 and take
 * DW_AT_comp_dir as directory 0; DWARF 5 lists both from 0. Unlike
 * dwarf_decl_file() in 0.188, file 0 of DWARF 5 (where Clang declares the
 * CU's own functions) has its name. The same reader serves with lines, so
 * that the declarations do not depend on them. A header this reader does
 * not follow (a form it does not know, a compressed section) gives no
 * names: the frames keep their lines and functions, with a NULL file.
 */

/* A cursor over a section's bytes; bad once it has run past the end. */
struct sym_cursor {
	const unsigned char *p, *end;
	bool le, bad;
};

static uint64_t
sym_rd(struct sym_cursor *c, size_t n)
{
	uint64_t v = 0;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)c->p[c->le ? i : n - 1 - i] << (8 * i);
	c->p += n;
	return v;
}

static uint64_t
sym_rd_uleb(struct sym_cursor *c)
{
	uint64_t v = 0;

	for (unsigned shift = 0; !c->bad; shift += 7) {
		unsigned char b;

		if (c->p == c->end) {
			c->bad = true;
			break;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	return 0;
}

static void
sym_rd_skip(struct sym_cursor *c, uint64_t n)
{
	if (c->bad || (uint64_t)(c->end - c->p) < n)
		c->bad = true;
	else
		c->p += n;
}

/* The NUL-terminated string at c, or NULL. */
static const char *
sym_rd_str(struct sym_cursor *c)
{
	const char *s = (const char *)c->p;
	const unsigned char *nul;

	if (c->bad || !(nul = memchr(c->p, '\0', (size_t)(c->end - c->p)))) {
		c->bad = true;
		return NULL;
	}
	c->p = nul + 1;
	return s;
}

/* The string at offset off of a string section, or NULL. */
static const char *
sym_sec_str(const Elf_Data *d, uint64_t off)
{
	const char *s;

	if (!d || !d->d_buf || off >= d->d_size)
		return NULL;
	s = (const char *)d->d_buf + off;
	return memchr(s, '\0', d->d_size - off) ? s : NULL;
}

/*
 * The sections of dbg, found once. libdw has decompressed its .debug
 * sections in place when it opened them; one still compressed is left
 * out, and its names are not known.
 */
static const struct sym_dwsecs *
sym_dwsecs_get(struct sym_module *m, Dwarf *dbg)
{
	struct sym_dwsecs *d;
	Elf *elf = dbg ? dwarf_getelf(dbg) : NULL;
	const unsigned char *ident;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	for (size_t i = 0; i < m->nr_dwsecs; i++)
		if (m->dwsecs[i].dbg == dbg)
			return &m->dwsecs[i];
	ALLOC_GROW(m->dwsecs, m->nr_dwsecs, m->alloc_dwsecs);
	d = &m->dwsecs[m->nr_dwsecs++];
	memset(d, 0, sizeof(*d));
	d->dbg = dbg;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return d;
	ident = (const unsigned char *)elf_getident(elf, NULL);
	d->le = !ident || ident[EI_DATA] != ELFDATA2MSB;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data **slot = NULL;
		Elf_Data *data;
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & SHF_COMPRESSED) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strncmp(name, ".zdebug_", 8))
			name += 2; /* GNU-compressed: checked below */
		else if (!strncmp(name, ".debug_", 7))
			name += 1;
		else
			continue;
		if (!strcmp(name, "debug_line"))
			slot = &d->line;
		else if (!strcmp(name, "debug_line_str"))
			slot = &d->line_str;
		else if (!strcmp(name, "debug_str"))
			slot = &d->str;
		if (!slot || !(data = elf_getdata(scn, NULL)) || !data->d_buf)
			continue;
		if (data->d_size >= 4 && !memcmp(data->d_buf, "ZLIB", 4))
			continue;
		*slot = data;
	}
	return d;
}

/*
 * Read one value of form in a DWARF 5 entry: a string into *str, a
 * constant into *num, anything else skipped. Returns false for a form
 * this reader does not know (libdw would know it; the names are lost).
 */
static bool
sym_rd_form(struct sym_module *m, const struct sym_dwsecs *secs,
	    struct sym_cursor *c, unsigned form, size_t offset_size,
	    const char **str, uint64_t *num)
{
	*str = NULL;
	*num = 0;
	switch (form) {
	case DW_FORM_string:
		*str = sym_rd_str(c);
		return true;
	case DW_FORM_line_strp:
		*str = sym_sec_str(secs->line_str, sym_rd(c, offset_size));
		return true;
	case DW_FORM_strp:
		*str = sym_sec_str(secs->str, sym_rd(c, offset_size));
		return true;
	case DW_FORM_strp_sup:
	case DW_FORM_GNU_strp_alt: {
		/* In the .debug_str of the dwz file. */
		uint64_t off = sym_rd(c, offset_size);
		Dwarf *alt = dwarf_getalt(secs->dbg);

		*str = alt ? sym_sec_str(sym_dwsecs_get(m, alt)->str, off) : NULL;
		return true;
	}
	case DW_FORM_udata:
		*num = sym_rd_uleb(c);
		return true;
	case DW_FORM_sdata:
		sym_rd_uleb(c); /* same length; a negative index is no index */
		*num = UINT64_MAX;
		return true;
	case DW_FORM_data1:
		*num = sym_rd(c, 1);
		return true;
	case DW_FORM_data2:
		*num = sym_rd(c, 2);
		return true;
	case DW_FORM_data4:
		*num = sym_rd(c, 4);
		return true;
	case DW_FORM_data8:
		*num = sym_rd(c, 8);
		return true;
	case DW_FORM_data16:
		sym_rd_skip(c, 16);
		return true;
	case DW_FORM_block:
		sym_rd_skip(c, sym_rd_uleb(c));
		return true;
	case DW_FORM_block1:
		sym_rd_skip(c, sym_rd(c, 1));
		return true;
	case DW_FORM_block2:
		sym_rd_skip(c, sym_rd(c, 2));
		return true;
	case DW_FORM_block4:
		sym_rd_skip(c, sym_rd(c, 4));
		return true;
	default:
		return false;
	}
}

/*
 * A DWARF 5 directory or file list: its format, then its entries, each a
 * path and (for files) a directory index. Fills *paths and *dirs (NULL
 * for a list of directories) and returns the count, or -1; the caller
 * frees the arrays either way. secs is a copy: sym_rd_form() may move
 * the module's array.
 */
static int64_t
sym_rd_entries(struct sym_module *m, struct sym_dwsecs secs, struct sym_cursor *c,
	       size_t offset_size, const char ***paths, uint64_t **dirs)
{
	unsigned content[256], form[256];
	unsigned nr_formats = (unsigned)sym_rd(c, 1);
	uint64_t count;

	*paths = NULL;
	if (dirs)
		*dirs = NULL;
	for (unsigned i = 0; i < nr_formats; i++) {
		content[i] = (unsigned)sym_rd_uleb(c);
		form[i] = (unsigned)sym_rd_uleb(c);
	}
	count = sym_rd_uleb(c);
	/* At least a byte an entry: a count past the header is corrupt. */
	if (c->bad || (count && (!nr_formats || count > (uint64_t)(c->end - c->p))))
		return -1;
	*paths = xcalloc(count ? count : 1, sizeof(**paths));
	if (dirs)
		*dirs = xcalloc(count ? count : 1, sizeof(**dirs));
	for (uint64_t n = 0; n < count; n++) {
		bool have_dir = false;

		for (unsigned i = 0; i < nr_formats; i++) {
			const char *str;
			uint64_t num;

			if (!sym_rd_form(m, &secs, c, form[i], offset_size, &str, &num))
				return -1;
			if (content[i] == DW_LNCT_path)
				(*paths)[n] = str;
			else if (content[i] == DW_LNCT_directory_index && dirs) {
				(*dirs)[n] = num;
				have_dir = true;
			}
		}
		if (c->bad || !(*paths)[n] || (dirs && !have_dir))
			return -1;
	}
	return (int64_t)count;
}

/* Read the header of the line program at ft->off into ft. */
static void
sym_filetab_read(struct sym_module *m, struct sym_filetab *ft, const char *comp_dir)
{
	const struct sym_dwsecs *secs = sym_dwsecs_get(m, ft->dbg);
	struct sym_dwsecs copy = *secs; /* sym_dwsecs_get() may move it */
	struct sym_cursor c = { NULL, NULL, secs->le, false };
	uint64_t len, hdr_len;
	size_t offset_size = 4;
	unsigned version, opcode_base;
	const char **paths = NULL;
	uint64_t *dirs = NULL;
	int64_t n;

	if (!copy.line || ft->off >= copy.line->d_size)
		return;
	c.p = (const unsigned char *)copy.line->d_buf + ft->off;
	c.end = (const unsigned char *)copy.line->d_buf + copy.line->d_size;
	len = sym_rd(&c, 4);
	if (len == 0xffffffff) {
		offset_size = 8;
		len = sym_rd(&c, 8);
	}
	if (c.bad || len > (uint64_t)(c.end - c.p))
		return;
	c.end = c.p + len;
	version = (unsigned)sym_rd(&c, 2);
	if (version < 2 || version > 5)
		return;
	if (version >= 5)
		sym_rd_skip(&c, 2); /* address and segment selector sizes */
	hdr_len = sym_rd(&c, offset_size);
	if (c.bad || hdr_len > (uint64_t)(c.end - c.p))
		return;
	c.end = c.p + hdr_len;
	/* Instruction length, [max ops,] is_stmt, line base and range. */
	sym_rd_skip(&c, version >= 4 ? 5 : 4);
	opcode_base = (unsigned)sym_rd(&c, 1);
	sym_rd_skip(&c, opcode_base ? opcode_base - 1 : 0);
	if (c.bad)
		return;
	if (version >= 5) {
		n = sym_rd_entries(m, copy, &c, offset_size, &ft->dirs, NULL);
		if (n < 0)
			goto fail;
		ft->nr_dirs = (size_t)n;
		n = sym_rd_entries(m, copy, &c, offset_size, &paths, &dirs);
		if (n < 0)
			goto fail;
		ft->files = xcalloc(n ? (size_t)n : 1, sizeof(*ft->files));
		for (int64_t i = 0; i < n; i++) {
			ft->files[i].name = paths[i];
			ft->files[i].dir = dirs[i];
		}
		ft->nr_files = (size_t)n;
		free(paths);
		free(dirs);
		return;
	}
	/* Directory 0 is the compilation's; file 0 is none. */
	{
		size_t alloc = 8, falloc = 8;

		ft->dirs = xreallocarray(NULL, alloc, sizeof(*ft->dirs));
		ft->dirs[ft->nr_dirs++] = comp_dir;
		while (!c.bad && c.p < c.end && *c.p) {
			if (ft->nr_dirs == alloc) {
				alloc *= 2;
				ft->dirs = xreallocarray(ft->dirs, alloc, sizeof(*ft->dirs));
			}
			ft->dirs[ft->nr_dirs++] = sym_rd_str(&c);
		}
		sym_rd_skip(&c, 1);
		ft->files = xreallocarray(NULL, falloc, sizeof(*ft->files));
		ft->files[0].name = NULL;
		ft->files[0].dir = 0;
		ft->files[0].path = NULL;
		n = 1;
		while (!c.bad && c.p < c.end && *c.p) {
			if ((size_t)n == falloc) {
				falloc *= 2;
				ft->files = xreallocarray(ft->files, falloc, sizeof(*ft->files));
			}
			ft->files[n].name = sym_rd_str(&c);
			ft->files[n].dir = sym_rd_uleb(&c);
			ft->files[n].path = NULL;
			sym_rd_uleb(&c); /* mtime */
			sym_rd_uleb(&c); /* length */
			n++;
		}
		if (c.bad)
			goto fail;
		ft->nr_files = (size_t)n;
		return;
	}
fail:
	free(paths);
	free(dirs);
	free(ft->dirs);
	free(ft->files);
	ft->dirs = NULL;
	ft->files = NULL;
	ft->nr_dirs = ft->nr_files = 0;
}

/* The file table of the line program of the unit cu, read on first use. */
static struct sym_filetab *
sym_filetab_get(struct sym_module *m, Dwarf_CU *cu)
{
	Dwarf_Die cudie;
	Dwarf_Attribute attr;
	Dwarf_Word off;
	Dwarf *dbg = dwarf_cu_getdwarf(cu);
	struct sym_filetab *ft;

	if (!dbg || !dwarf_cu_die(cu, &cudie, NULL, NULL, NULL, NULL, NULL, NULL) ||
	    dwarf_formudata(dwarf_attr(&cudie, DW_AT_stmt_list, &attr), &off) != 0)
		return NULL;
	if (m->last_filetab < m->nr_filetabs && m->filetabs[m->last_filetab].dbg == dbg &&
	    m->filetabs[m->last_filetab].off == off)
		return &m->filetabs[m->last_filetab];
	for (size_t i = 0; i < m->nr_filetabs; i++)
		if (m->filetabs[i].dbg == dbg && m->filetabs[i].off == off)
			return &m->filetabs[m->last_filetab = i];
	ALLOC_GROW(m->filetabs, m->nr_filetabs, m->alloc_filetabs);
	ft = &m->filetabs[m->nr_filetabs];
	memset(ft, 0, sizeof(*ft));
	ft->dbg = dbg;
	ft->off = off;
	sym_filetab_read(m, ft, dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir,
							    &attr)));
	m->last_filetab = m->nr_filetabs++;
	return ft;
}

/*
 * The name of file idx of the unit cu (attr->cu of a DW_AT_decl_file or
 * DW_AT_call_file), interned in sym->strings; NULL when unknown.
 */
static const char *
sym_file_name(struct symbolizer *sym, struct sym_module *m, Dwarf_CU *cu,
	      Dwarf_Word idx)
{
	struct sym_filetab *ft = cu ? sym_filetab_get(m, cu) : NULL;
	struct sym_srcfile *f;
	const char *dir = NULL;

	if (!ft || idx >= ft->nr_files)
		return NULL;
	f = &ft->files[idx];
	if (f->path || !f->name)
		return f->path;
	if (f->name[0] != '/') {
		if (f->dir >= ft->nr_dirs)
			return NULL; /* libdw rejects the whole table */
		dir = ft->dirs[f->dir];
	}
	strbuf_setlen(&sym->path, 0);
	if (dir)
		strbuf_addf(&sym->path, "%s/", dir);
	strbuf_addstr(&sym->path, f->name);
	f->path = intern_get(&sym->strings, intern_str(&sym->strings, sym->path.buf,
						     sym->path.len));
	return f->path;
}

/* The file of die's declaration (as dwarf_decl_file()), or NULL. */
static const char *
sym_decl_file(struct symbolizer *sym, struct sym_module *m, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx;

	if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &attr), &idx) != 0)
		return NULL;
	return sym_file_name(sym, m, attr.cu, idx);
}

static void
sym_filetabs_free(struct sym_module *m)
{
	for (size_t i = 0; i < m->nr_filetabs; i++) {
		free(m->filetabs[i].dirs);
		free(m->filetabs[i].files);
	}
	free(m->filetabs);
	free(m->dwsecs);
	m->filetabs = NULL;
	m->dwsecs = NULL;
	m->nr_filetabs = m->alloc_filetabs = m->last_filetab = 0;
	m->nr_dwsecs = m->alloc_dwsecs = 0;
}

/*
 * Let everything read from m's files go: its Dwfl session (libdw's memory
 * and mappings) and the indices that point into it. Its path, segments
 * and flags stay, and so do the answers in the cache, whose strings are
 * the symbolizer's own.
 */
static void
sym_module_close(struct sym_module *m)
{
	for (size_t j = 0; j < m->nr_cus; j++) {
		free(m->cus[j].fns);
		free(m->cus[j].tops);
		free(m->cus[j].ranges);
	}
	free(m->cus);
	m->cus = NULL;
	m->nr_cus = m->alloc_cus = m->last_cu = 0;
	if (m->elf_indexed)
		elfsym_index_release(&m->elf);
	m->elf_indexed = false;
	free(m->units);
	m->units = NULL;
	m->nr_units = 0;
	m->units_indexed = false;
	sym_filetabs_free(m);
	free(m->plt_names);
	m->plt_names = NULL;
	m->nr_plt = 0;
	m->plt_read = false;
	if (m->dwfl)
		dwfl_end(m->dwfl);
	m->dwfl = NULL;
	m->mod = NULL;
}

/* f's name, declaration and call site, read from its DIE on first use. */
static const struct sym_fn *
sym_fn_read(struct symbolizer *sym, struct sym_module *m, struct sym_fn *f)
{
	Dwarf_Die *die = &f->die;
	Dwarf_Attribute attr;
	Dwarf_Word w;
	int decl_line = 0;

	if (f->read)
		return f;
	f->read = true;
	f->name = sym_str(sym, sym_die_name(die));
	/* Both follow DW_AT_abstract_origin and DW_AT_specification. */
	f->decl_file = sym_decl_file(sym, m, die);
	f->decl_line = dwarf_decl_line(die, &decl_line) == 0 && decl_line > 0
			       ? (unsigned)decl_line
			       : 0;
	f->inlined = dwarf_tag(die) == DW_TAG_inlined_subroutine;
	if (!f->inlined)
		return f;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &w) == 0)
		f->call_file = sym_file_name(sym, m, attr.cu, w);
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &w) == 0)
		f->call_line = (unsigned)w;
	return f;
}

/*
 * Where a module's DWARF has no .debug_aranges (Clang and rustc leave it
 * out unless asked), libdwfl finds no unit for any address, and
 * dwfl_module_addrdie() fails. The units' own ranges say the same, as
 * addr2line reads them then: each unit's DIE, with DW_AT_low_pc and
 * DW_AT_high_pc or DW_AT_ranges, read once, sorted by start.
 */
static int
sym_unit_cmp(const void *a, const void *b)
{
	const struct sym_unit *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool
sym_unit_before(const void *elem, const void *key)
{
	return ((const struct sym_unit *)elem)->lo <= *(const Dwarf_Addr *)key;
}

/* Has dbg's file a .debug_aranges section? */
static bool
sym_has_aranges(Dwarf *dbg)
{
	Elf *elf = dwarf_getelf(dbg);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return true; /* cannot tell: leave it to libdwfl */
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    (!strcmp(name, ".debug_aranges") || !strcmp(name, ".zdebug_aranges")))
			return true;
	}
	return false;
}

static void
sym_units_index(struct sym_module *m, Dwarf *dbg)
{
	Dwarf_Off off = 0, next;
	size_t hsize, alloc = 0;

	m->units_indexed = true;
	if (sym_has_aranges(dbg))
		return;
	while (dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cudie;
		Dwarf_Addr base, s, e;
		ptrdiff_t r = 0;

		if (dwarf_offdie(dbg, off + hsize, &cudie)) {
			while ((r = dwarf_ranges(&cudie, r, &base, &s, &e)) > 0) {
				if (s >= e)
					continue;
				ALLOC_GROW(m->units, m->nr_units, alloc);
				m->units[m->nr_units].lo = s;
				m->units[m->nr_units].hi = e;
				m->units[m->nr_units].die = off + hsize;
				m->nr_units++;
			}
		}
		off = next;
	}
	if (m->nr_units > 1)
		qsort(m->units, m->nr_units, sizeof(*m->units), sym_unit_cmp);
}

/*
 * The DIE of the unit holding addr (a Dwfl address), into *die, with the
 * bias of its addresses: as dwfl_module_addrdie(), from the units' own
 * ranges where the module has no .debug_aranges; NULL when none holds it.
 */
static Dwarf_Die *
sym_addrdie(struct sym_module *m, Dwarf_Addr addr, Dwarf_Die *die, Dwarf_Addr *bias)
{
	Dwarf_Die *found = dwfl_module_addrdie(m->mod, addr, bias);
	Dwarf *dbg;
	Dwarf_Addr pc;
	size_t i;

	if (found)
		return found;
	dbg = dwfl_module_getdwarf(m->mod, bias);
	if (!dbg)
		return NULL;
	if (!m->units_indexed)
		sym_units_index(m, dbg);
	pc = addr - *bias;
	i = bsearch_first(m->units, m->nr_units, sizeof(*m->units), &pc, sym_unit_before);
	if (!i || pc >= m->units[i - 1].hi)
		return NULL;
	return dwarf_offdie(dbg, m->units[i - 1].die, die);
}

/*
 * The source file and line of addr (a Dwfl address) from the line table,
 * or NULL. libdwfl finds the table through .debug_aranges too: where the
 * module has none, the unit's own table, found by its ranges.
 */
static const char *
sym_src(struct sym_module *m, Dwarf_Addr addr, int *line)
{
	Dwfl_Line *dl = dwfl_module_getsrc(m->mod, addr);
	Dwarf_Die unit, *cudie;
	Dwarf_Addr bias;
	Dwarf_Line *l;

	*line = 0;
	if (dl)
		return dwfl_lineinfo(dl, NULL, line, NULL, NULL, NULL);
	if (!m->nr_units)
		return NULL;
	cudie = sym_addrdie(m, addr, &unit, &bias);
	l = cudie ? dwarf_getsrc_die(cudie, addr - bias) : NULL;
	if (!l || dwarf_lineno(l, line) != 0)
		return NULL;
	return dwarf_linesrc(l, NULL, NULL);
}

/*
 * The inline chain at addr, with eu-addr2line -i's answer: the innermost
 * function DIE holding the address, then each function it was inlined
 * into (the concrete parents; abstract origins only give names). The
 * innermost frame takes the line table's file:line; each outer frame takes
 * the call site recorded on the DIE inlined into it.
 */
static void
sym_dwarf_frames(struct symbolizer *sym, struct sym_module *m, Dwarf_Addr addr)
{
	Dwarf_Addr cubias, pc;
	Dwarf_Die unit, *cudie = sym_addrdie(m, addr, &unit, &cubias);
	struct sym_cu *cu;
	const char *file = NULL;
	int line = 0;
	uint32_t fn = SYM_NO_FN;

	if (!cudie)
		return;
	cu = sym_cu_get(m, cudie);
	pc = addr - cubias;
	fn = sym_cu_find(cu, pc);
	if (fn == SYM_NO_FN)
		return;
	if (sym->lines)
		file = sym_src(m, addr, &line);
	for (; fn != SYM_NO_FN; fn = cu->fns[fn].parent) {
		const struct sym_fn *f = sym_fn_read(sym, m, &cu->fns[fn]);

		sym_push(sym, f->name, file, line > 0 ? (unsigned)line : 0, f->decl_file,
			 f->decl_line);
		if (!f->inlined)
			break;
		/* The next frame is at this one's call site. */
		file = f->call_file;
		line = (int)f->call_line;
	}
}

/* The Dwfl address of file offset off in m, through its PT_LOAD segments. */
static bool
sym_offset_addr(const struct sym_module *m, uint64_t off, Dwarf_Addr *addr)
{
	for (size_t i = 0; i < m->nr_loads; i++) {
		if (off >= m->loads[i].off && off - m->loads[i].off < m->loads[i].filesz) {
			*addr = off - m->loads[i].off + m->loads[i].vaddr + m->bias;
			return true;
		}
	}
	return false;
}

/* What the symbol index needs of one ELF's sections. */
struct sym_sec {
	uint64_t end;  /* its end, as a Dwfl address; 0 when not allocated */
	bool code;     /* SHF_EXECINSTR */
};

/*
 * The sections of the ELF files a symbol table refers to (the main or
 * debug file, and the MiniDebugInfo one): read once per file, not per
 * symbol.
 */
struct sym_secs {
	Elf *elf;
	struct sym_sec *secs;
	size_t nr;
};

static const struct sym_secs *
sym_secs_get(struct sym_secs cache[2], Elf *elf, Dwarf_Addr bias)
{
	struct sym_secs *c;
	size_t n = 0;

	if (cache[0].elf == elf)
		return &cache[0];
	if (cache[1].elf == elf)
		return &cache[1];
	c = cache[0].elf ? &cache[1] : &cache[0];
	free(c->secs);
	c->elf = elf;
	c->secs = NULL;
	c->nr = 0;
	if (!elf || elf_getshdrnum(elf, &n) != 0 || !n)
		return c;
	c->secs = xcalloc(n, sizeof(*c->secs));
	c->nr = n;
	for (size_t i = 0; i < n; i++) {
		GElf_Shdr sh;

		if (!gelf_getshdr(elf_getscn(elf, i), &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		c->secs[i].end = sh.sh_addr + sh.sh_size + bias;
		c->secs[i].code = (sh.sh_flags & SHF_EXECINSTR) != 0;
	}
	return c;
}

/*
 * Where a zero-size symbol in section shndx must stop, as a Dwfl address:
 * the section's end. Without section headers (a table found through the
 * dynamic segment), the end of the PT_LOAD segment holding addr. Absolute
 * and common symbols have no place to reach over: they cover nothing.
 */
static uint64_t
sym_elf_limit(const struct sym_module *m, const struct sym_secs *secs,
	      GElf_Word shndx, GElf_Addr addr)
{
	if (shndx >= SHN_LORESERVE)
		return addr;
	if (shndx < secs->nr && secs->secs[shndx].end)
		return secs->secs[shndx].end;
	for (size_t i = 0; i < m->nr_loads; i++) {
		uint64_t lo = m->loads[i].vaddr + m->bias;

		if (addr >= lo && addr - lo < m->loads[i].filesz)
			return lo + m->loads[i].filesz;
	}
	return addr;
}

/*
 * Can the symbol hold code, i.e. be where a sample is? Not a section,
 * file or TLS symbol, not undefined, and not a data object in a section
 * that holds no code (the table's locals are mostly those).
 */
static bool
sym_elf_wanted(const GElf_Sym *es, GElf_Word shndx, const struct sym_secs *secs)
{
	int type = GELF_ST_TYPE(es->st_info);

	if (shndx == SHN_UNDEF || type == STT_SECTION || type == STT_FILE ||
	    type == STT_TLS)
		return false;
	if (type != STT_OBJECT && type != STT_COMMON)
		return true;
	return !(shndx < secs->nr && secs->secs[shndx].end && !secs->secs[shndx].code);
}

/*
 * The module's ELF symbols, indexed on first use. libdwfl reads the table
 * (.symtab, from the separate debug file if there is one, else .dynsym,
 * plus the MiniDebugInfo table where there is one); it is walked here
 * once. dwfl_module_addrinfo() would walk all of it for every address.
 * The symbols libdwfl would consider are kept (named, defined, no section,
 * file or TLS symbols), less the data objects in sections without code.
 * A local symbol takes the STT_FILE symbol before it in the table as its
 * file, as addr2line reports it (crtstuff.c for __do_global_dtors_aux);
 * global symbols come after every file's locals. Names point into the
 * table's strings, which libelf keeps while m->dwfl is open.
 */
static struct elfsym_index *
sym_elf_index(struct sym_module *m)
{
	struct sym_secs secs[2] = { { NULL, NULL, 0 }, { NULL, NULL, 0 } };
	const char *file = NULL;
	int nr;

	if (m->elf_indexed)
		return &m->elf;
	m->elf_indexed = true;
	elfsym_index_init(&m->elf);
	nr = dwfl_module_getsymtab(m->mod);
	if (nr > 1)
		elfsym_index_reserve(&m->elf, (uint32_t)nr - 1);
	for (int i = 1; i < nr; i++) {
		const struct sym_secs *sc;
		struct elfsym_def def;
		GElf_Sym es;
		GElf_Addr a;
		GElf_Word shndx;
		Elf *elf = NULL;
		Dwarf_Addr bias = 0;
		const char *n = dwfl_module_getsym_info(m->mod, i, &es, &a, &shndx,
							&elf, &bias);

		if (!n)
			continue;
		if (GELF_ST_TYPE(es.st_info) == STT_FILE)
			file = *n ? n : NULL;
		if (!*n)
			continue;
		sc = sym_secs_get(secs, elf, bias);
		if (!sym_elf_wanted(&es, shndx, sc))
			continue;
		def.name = n;
		def.start = a;
		def.size = es.st_size;
		def.limit = es.st_size ? a : sym_elf_limit(m, sc, shndx, a);
		def.bind = GELF_ST_BIND(es.st_info);
		def.file = def.bind == STB_LOCAL ? file : NULL;
		elfsym_index_add(&m->elf, &def);
	}
	free(secs[0].secs);
	free(secs[1].secs);
	elfsym_index_finish(&m->elf);
	return &m->elf;
}

/*
 * Read m's PLT as perf synthesizes its symbols (dso__synthesize_plt_symbols()):
 * the i-th relocation of .rela.plt (or .rel.plt) names the i-th entry,
 * "name@plt", in .plt.sec where there is one, else in .plt past its
 * header. x86 (16-byte header and entries) and AArch64 (32 and 16) only.
 */
static void
sym_plt_read(struct symbolizer *sym, struct sym_module *m)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	GElf_Shdr plt = { 0 }, sec = { 0 }, relsh = { 0 }, symsh, sh;
	Elf_Scn *scn = NULL, *rel = NULL, *symscn;
	Elf_Data *reldata, *symdata;
	GElf_Ehdr eh;
	bool have_plt = false, have_sec = false;
	uint64_t header;
	size_t shstrndx, n;
	struct strbuf sb = STRBUF_INIT;

	m->plt_read = true;
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx))
		return;
	if (eh.e_machine == EM_X86_64 || eh.e_machine == EM_386)
		header = 16;
	else if (eh.e_machine == EM_AARCH64)
		header = 32;
	else
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".plt")) {
			plt = sh;
			have_plt = true;
		} else if (!strcmp(name, ".plt.sec")) {
			sec = sh;
			have_sec = true;
		} else if (!rel && (!strcmp(name, ".rela.plt") || !strcmp(name, ".rel.plt"))) {
			rel = scn;
			relsh = sh;
		}
	}
	if (!have_plt || !rel || !relsh.sh_entsize || !relsh.sh_link ||
	    (relsh.sh_type != SHT_RELA && relsh.sh_type != SHT_REL) ||
	    !(symscn = elf_getscn(elf, relsh.sh_link)) || !gelf_getshdr(symscn, &symsh) ||
	    !(reldata = elf_getdata(rel, NULL)) || !(symdata = elf_getdata(symscn, NULL)))
		return;
	m->plt_entry = 16;
	m->plt_start = (have_sec ? sec.sh_addr : plt.sh_addr + header) + bias;
	n = relsh.sh_size / relsh.sh_entsize;
	m->plt_names = xcalloc(n ? n : 1, sizeof(*m->plt_names));
	m->nr_plt = n;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela ra;
		GElf_Rel rl;
		GElf_Sym es;
		size_t idx;
		const char *name;

		if (relsh.sh_type == SHT_RELA) {
			if (!gelf_getrela(reldata, (int)i, &ra))
				break;
			idx = GELF_R_SYM(ra.r_info);
		} else {
			if (!gelf_getrel(reldata, (int)i, &rl))
				break;
			idx = GELF_R_SYM(rl.r_info);
		}
		/* an entry of no symbol (IRELATIVE) is perf's "@plt" too */
		if (!gelf_getsym(symdata, (int)idx, &es) ||
		    !(name = elf_strptr(elf, symsh.sh_link, es.st_name)))
			continue;
		strbuf_reset(&sb);
		strbuf_addstr(&sb, name);
		strbuf_addstr(&sb, "@plt");
		m->plt_names[i] = sym_str(sym, sb.buf);
	}
	strbuf_release(&sb);
}

/* The name perf gives the PLT entry at addr, or NULL. */
static const char *
sym_plt_name(struct symbolizer *sym, struct sym_module *m, uint64_t addr)
{
	if (!m->plt_read)
		sym_plt_read(sym, m);
	if (!m->nr_plt || addr < m->plt_start || (addr - m->plt_start) / m->plt_entry >= m->nr_plt)
		return NULL;
	return m->plt_names[(addr - m->plt_start) / m->plt_entry];
}

static size_t
sym_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Among the aliases of es (the symbols at its start), the one perf names
 * the address after (its choose_best_symbol()): a sized one, then not
 * weak, then global, then fewest leading underscores, then the longest
 * name; on a tie the one the index prefers. perf shows "mmap64" where
 * the index's order picks "__mmap".
 */
static const struct elfsym *
sym_perf_alias(const struct elfsym_index *ix, const struct elfsym *es)
{
	const struct elfsym *lo = es, *hi = es + 1, *end = ix->syms + ix->nr_syms, *best = es;

	while (lo > ix->syms && lo[-1].start == es->start)
		lo--;
	while (hi < end && hi->start == es->start)
		hi++;
	for (const struct elfsym *p = lo; p < hi; p++) {
		size_t pu, bu, pl, bl;

		if (p == best || p->label)
			continue;
		if (p->sized != best->sized) {
			if (p->sized)
				best = p;
			continue;
		}
		if ((p->bind == STB_WEAK) != (best->bind == STB_WEAK)) {
			if (best->bind == STB_WEAK)
				best = p;
			continue;
		}
		if ((p->bind == STB_GLOBAL) != (best->bind == STB_GLOBAL)) {
			if (p->bind == STB_GLOBAL)
				best = p;
			continue;
		}
		pu = sym_underscores(p->name);
		bu = sym_underscores(best->name);
		if (pu != bu) {
			if (pu < bu)
				best = p;
			continue;
		}
		pl = strlen(p->name);
		bl = strlen(best->name);
		if (pl > bl || (pl == bl && p < best))
			best = p;
	}
	return best;
}

/* Resolve into sym->scratch (an array of struct sym_frame). */
static void
sym_lookup(struct symbolizer *sym, struct sym_module *m, uint64_t off)
{
	const struct sym_frame *frames;
	const struct elfsym_index *ix;
	const struct elfsym *es;
	Dwarf_Addr addr;

	strbuf_setlen(&sym->scratch, 0);
	if (m->changed || m->perf_knows || !sym_module_ready(m) ||
	    !sym_offset_addr(m, off, &addr))
		return;
	if (sym->no_dwarf) {
		const char *plt = sym_plt_name(sym, m, addr);

		if (plt) {
			sym_push(sym, plt, NULL, 0, NULL, 0);
			return;
		}
	} else {
		sym_dwarf_frames(sym, m, addr);
	}
	if (sym->scratch.len) {
		frames = (const struct sym_frame *)sym->scratch.buf;
		if (frames[0].function)
			return;
		strbuf_setlen(&sym->scratch, 0);
	}
	/* No DWARF for it: the ELF symbol, with a line if one is known. */
	ix = sym_elf_index(m);
	es = elfsym_index_lookup(ix, addr);
	if (es && sym->no_dwarf)
		es = sym_perf_alias(ix, es);
	if (es) {
		const char *file = NULL;
		int line = 0;

		if (sym->lines)
			file = sym_src(m, addr, &line);
		if (!file && es->bind == STB_LOCAL && sym->lines)
			file = elfsym_file(ix, es);
		sym_push(sym, elfsym_name(ix, es), file, line > 0 ? (unsigned)line : 0, NULL, 0);
	}
}

static int
sym_resolve(struct symbolizer *sym, const char *module, uint64_t addr, struct sym_result *out,
	    bool probe)
{
	uint32_t mi = (uint32_t)sym_module_get(sym, module);
	size_t s = sym_key_hash(mi, addr) & sym->mask;
	struct sym_entry *e;

	sym->stats.lookups++;
	for (; sym->slots[s]; s = (s + 1) & sym->mask) {
		e = &sym->entries[sym->slots[s] - 1];
		if (e->module == mi && e->addr == addr) {
			sym->stats.cache_hits++;
			out->frames = e->frames;
			out->nr_frames = e->nr_frames;
			return e->nr_frames > 0;
		}
	}
	sym_lookup(sym, &sym->modules[mi], addr);
	if (sym->nr_entries == sym->alloc_entries) {
		if (sym->alloc_entries >= UINT32_MAX / 2)
			die("symbolizer: too many addresses");
		sym->alloc_entries = sym->alloc_entries ? 2 * sym->alloc_entries : 64;
		sym->entries = xreallocarray(sym->entries, sym->alloc_entries,
					     sizeof(*sym->entries));
	}
	e = &sym->entries[sym->nr_entries];
	e->module = mi;
	e->addr = addr;
	e->nr_frames = sym->scratch.len / sizeof(struct sym_frame);
	e->frames = e->nr_frames ? xmemdup(sym->scratch.buf, sym->scratch.len)
				 : NULL;
	if (!e->nr_frames && !probe)
		sym->stats.unresolved++;
	else if (!e->nr_frames)
		sym->stats.probe_misses++;
	sym->slots[s] = (uint32_t)(++sym->nr_entries);
	if (2 * sym->nr_entries > sym->mask)
		sym_slots_grow(sym);
	out->frames = e->frames;
	out->nr_frames = e->nr_frames;
	return e->nr_frames > 0;
}

int
symbolizer_resolve(struct symbolizer *sym, const char *module, uint64_t addr,
		   struct sym_result *out)
{
	return sym_resolve(sym, module, addr, out, false);
}

int
symbolizer_probe(struct symbolizer *sym, const char *module, uint64_t addr,
		 struct sym_result *out)
{
	return sym_resolve(sym, module, addr, out, true);
}

bool
symbolizer_defer_to_perf(struct symbolizer *sym, const char *module)
{
	size_t mi = sym_module_get(sym, module); /* may move sym->modules */
	struct sym_module *m = &sym->modules[mi];
	const char *debugfile = NULL;
	Elf_Scn *scn = NULL;
	Dwarf_Addr bias;
	size_t shstrndx;
	Elf *elf;

	if (m->perf_knows)
		return true;
	if (m->changed || !sym_module_ready(m) || dwfl_module_getdwarf(m->mod, &bias))
		return false;
	dwfl_module_info(m->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	elf = dwfl_module_getelf(m->mod, &bias);
	if (debugfile || !elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_SYMTAB)
			return false;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || !strcmp(name, ".gnu_debugdata"))
			return false;
	}
	m->perf_knows = true;
	return true;
}

/*
 * The ELF file at path, read rather than mapped: libelf then reads the
 * headers and the sections asked for with pread(), where a mapping would
 * cost a page fault on each page touched (the section headers sit at the
 * end of the file), 0.2 ms a file on this 2-core VM: 5 ms for a system
 * profile's 25 modules. NULL when it cannot be read as ELF; otherwise
 * close *fd after elf_end(). Sets *shstrndx.
 */
static Elf *
elf_read(const char *path, int *fd, size_t *shstrndx)
{
	Elf *elf;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, shstrndx) == 0)
		return elf;
	if (elf)
		elf_end(elf);
	close(*fd);
	return NULL;
}

bool
symbols_beyond_dynsym(const char *path)
{
	struct strbuf link = STRBUF_INIT;
	const unsigned char *id = NULL;
	bool beyond = true;
	Elf_Scn *scn = NULL;
	size_t shstrndx, id_len;
	Elf *elf;
	int fd;

	if (debuginfod_wanted() || !(elf = elf_read(path, &fd, &shstrndx)))
		return true;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    sh.sh_type == SHT_SYMTAB || !strcmp(name, ".gnu_debugdata") ||
		    !strncmp(name, ".debug_", 7) || !strncmp(name, ".zdebug_", 8))
			goto done;
		if (!strcmp(name, ".gnu_debuglink") && !link.len) {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (!d || !d->d_size || !memchr(d->d_buf, '\0', d->d_size))
				goto done;
			strbuf_addstr(&link, d->d_buf);
		}
	}
	id_len = elf_build_id(elf, &id);
	beyond = debug_file_may_exist(path, link.len ? link.buf : NULL, id, id_len);
done:
	elf_end(elf);
	close(fd);
	strbuf_release(&link);
	return beyond;
}

int
symbolizer_name_at(struct symbolizer *sym, const char *module, uint64_t addr,
		   const char *name)
{
	size_t mi = sym_module_get(sym, module); /* may move sym->modules */
	size_t len = strlen(name);
	struct sym_module *m = &sym->modules[mi];
	Dwarf_Addr a;

	if (!sym_module_ready(m))
		return -1;
	if (!sym_offset_addr(m, addr, &a))
		return 0;
	/* perf names PLT entries itself; no table has them: no name lookup. */
	if (len >= 4 && !strcmp(name + len - 4, "@plt"))
		return -1;
	return elfsym_index_name_covers(sym_elf_index(m), name, a);
}

const char *
symbolizer_perf_name(struct symbolizer *sym, const char *module, uint64_t addr)
{
	size_t mi = sym_module_get(sym, module); /* may move sym->modules */
	struct sym_module *m = &sym->modules[mi];
	const struct elfsym_index *ix;
	const struct elfsym *es;
	Dwarf_Addr a;

	if (m->changed || !sym_module_ready(m) || !sym_offset_addr(m, addr, &a))
		return NULL;
	ix = sym_elf_index(m);
	es = elfsym_index_perf_symbol(ix, a);
	return es ? sym_str(sym, elfsym_name(ix, es)) : NULL;
}

void
symbolizer_reject_module(struct symbolizer *sym, const char *module)
{
	size_t mi = sym_module_get(sym, module); /* may move sym->modules */
	struct sym_module *m = &sym->modules[mi];

	if (!m->unreadable && !m->changed) {
		m->changed = true;
		sym->stats.modules_changed++;
	}
}

void
symbolizer_set_lines(struct symbolizer *sym, bool lines)
{
	sym->lines = lines;
}

void
symbolizer_set_dwarf(struct symbolizer *sym, bool dwarf)
{
	sym->no_dwarf = !dwarf;
}

void
symbolizer_close_module(struct symbolizer *sym, const char *module)
{
	size_t i = sym_module_find(sym, module, hash_bytes(module, strlen(module), 0));
	struct sym_module *m;

	if (i == SIZE_MAX)
		return;
	m = &sym->modules[i];
	if (m->unreadable || m->closed)
		return;
	sym_module_close(m);
	m->closed = true;
}

void
symbolizer_stats(const struct symbolizer *sym, struct sym_stats *st)
{
	*st = sym->stats;
}

/*
 * Append ", N modules WHAT (path, path)" for the distinct paths of the
 * modules that pick() chooses, over every symbolizer.
 */
static void
summary_modules(const struct symbolizer *const *syms, size_t n, bool (*pick)(const struct sym_module *),
		const char *what, struct strbuf *sb)
{
	struct strbuf list = STRBUF_INIT;
	unsigned long count = 0;

	for (size_t s = 0; s < n; s++) {
		for (size_t i = 0; i < syms[s]->nr_modules; i++) {
			const struct sym_module *m = &syms[s]->modules[i];
			bool seen = false;

			if (!pick(m))
				continue;
			/* A module in two symbolizers is named once. */
			for (size_t t = 0; t < s && !seen; t++) {
				for (size_t j = 0; j < syms[t]->nr_modules && !seen; j++) {
					const struct sym_module *o = &syms[t]->modules[j];

					seen = o->hash == m->hash && pick(o) && !strcmp(o->path, m->path);
				}
			}
			if (seen)
				continue;
			strbuf_addstr(&list, count ? ", " : " (");
			strbuf_addstr(&list, m->path);
			count++;
		}
	}
	if (count)
		strbuf_addf(sb, ", %lu module%s %s%s)", count, count == 1 ? "" : "s", what, list.buf);
	strbuf_release(&list);
}

static bool
module_changed(const struct sym_module *m)
{
	return m->changed;
}

static bool
module_unreadable(const struct sym_module *m)
{
	return m->unreadable;
}

int
symbolizer_summary_many(const struct symbolizer *const *syms, size_t n, struct strbuf *sb)
{
	uint64_t unresolved = 0;
	bool modules = false;

	for (size_t s = 0; s < n; s++) {
		unresolved += syms[s]->stats.unresolved;
		modules |= syms[s]->stats.modules_unreadable || syms[s]->stats.modules_changed;
	}
	if (!unresolved && !modules)
		return 0;
	strbuf_addf(sb, "symbols: %llu address%s not resolved", (unsigned long long)unresolved,
		    unresolved == 1 ? "" : "es");
	summary_modules(syms, n, module_changed, "changed since the recording", sb);
	summary_modules(syms, n, module_unreadable, "unreadable", sb);
	return 1;
}

int
symbolizer_summary(const struct symbolizer *sym, struct strbuf *sb)
{
	return symbolizer_summary_many(&sym, 1, sb);
}

int
symbolizer_check(const struct symbolizer *sym, struct tf_error *err)
{
	size_t i, used = 0, unresolved = 0, bad = 0;

	for (i = 0; i <= sym->mask; i++) {
		uint32_t v = sym->slots[i];

		if (!v)
			continue;
		if (v > sym->nr_entries)
			return tf_error_set(err, "symbolizer: slot %zu names "
					    "entry %u of %zu", i, v - 1,
					    sym->nr_entries);
		used++;
	}
	if (used != sym->nr_entries)
		return tf_error_set(err, "symbolizer: %zu slots for %zu entries",
				    used, sym->nr_entries);
	for (i = 0; i < sym->nr_entries; i++) {
		const struct sym_entry *e = &sym->entries[i];
		size_t s = sym_key_hash(e->module, e->addr) & sym->mask;
		size_t j;

		if (e->module >= sym->nr_modules)
			return tf_error_set(err, "symbolizer: entry %zu has "
					    "module %u of %zu", i, e->module,
					    sym->nr_modules);
		while (sym->slots[s] && sym->slots[s] != i + 1)
			s = (s + 1) & sym->mask;
		if (sym->slots[s] != i + 1)
			return tf_error_set(err, "symbolizer: entry %zu is not "
					    "findable", i);
		for (j = 0; j < e->nr_frames; j++)
			if (!e->frames[j].function)
				return tf_error_set(err, "symbolizer: entry %zu "
						    "frame %zu has no name", i, j);
		unresolved += !e->nr_frames;
	}
	for (i = 0; i < sym->nr_modules; i++) {
		const struct sym_module *m = &sym->modules[i];
		size_t c, f;

		bad += m->unreadable;
		if ((m->unreadable || m->closed) &&
		    (m->dwfl || m->elf_indexed || m->nr_cus || m->nr_filetabs))
			return tf_error_set(err, "symbolizer: %s is %s but holds its "
					    "files", m->path,
					    m->unreadable ? "unreadable" : "closed");
		if (m->elf_indexed) {
			struct tf_error sub = TF_ERROR_INIT;

			if (elfsym_index_check(&m->elf, &sub)) {
				tf_error_set(err, "symbolizer: %s: %s", m->path,
					     tf_error_text(&sub));
				tf_error_release(&sub);
				return -1;
			}
		}
		for (c = 0; c < m->nr_cus; c++)
			for (f = 0; f < m->cus[c].nr_fns; f++) {
				const struct sym_fn *fn = &m->cus[c].fns[f];

				if (fn->lo >= fn->hi || (fn->parent != SYM_NO_FN &&
							 fn->parent >= f) ||
				    fn->nr_ranges == 1 ||
				    (size_t)fn->range + fn->nr_ranges > m->cus[c].nr_ranges)
					return tf_error_set(err, "symbolizer: %s: "
							    "bad function %zu "
							    "in cu %zu", m->path,
							    f, c);
			}
	}
	if (unresolved != sym->stats.unresolved + sym->stats.probe_misses ||
	    bad != sym->stats.modules_unreadable ||
	    sym->nr_modules - bad != sym->stats.modules_opened)
		return tf_error_set(err, "symbolizer: counters do not match "
				    "the cache");
	return 0;
}

/*
 * The cost model of symbolizer_cost_hint(), in nanoseconds, measured on a
 * 2-core machine with libdw 0.188: reading a symbol into the index; a
 * byte of DWARF as stored, and the factor for compressed sections, which
 * libdw inflates whole when it opens the file (libc6-dbg's: 4 MB stored,
 * 10 MB inflated, 30 ms of its 47).
 */
#define COST_SYMBOL 400
#define COST_DWARF_BYTE 1
#define COST_INFLATE 10

/*
 * The symbols and DWARF of one ELF file, priced; 0 if it is not one.
 * Read with elf_read(), before any worker starts.
 */
static uint64_t
elf_cost(const char *path, struct strbuf *debug_path, struct strbuf *debuglink)
{
	uint64_t cost = 0;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;
	int fd;

	if (!(elf = elf_read(path, &fd, &shstrndx)))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if ((sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) && sh.sh_entsize) {
			cost += sh.sh_size / sh.sh_entsize * COST_SYMBOL;
		} else if (!strncmp(name, ".debug_", 7) && sh.sh_type != SHT_NOBITS) {
			cost += sh.sh_size * COST_DWARF_BYTE *
				((sh.sh_flags & SHF_COMPRESSED) ? COST_INFLATE : 1);
		} else if (debuglink && !strcmp(name, ".gnu_debuglink")) {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (d && d->d_size && memchr(d->d_buf, '\0', d->d_size))
				strbuf_addstr(debuglink, d->d_buf);
		}
	}
	if (debug_path && !debug_path->len) {
		const unsigned char *b;
		size_t n = elf_build_id(elf, &b);

		debug_file_path(b, n, debug_path);
	}
	elf_end(elf);
	close(fd);
	return cost;
}

uint64_t
symbolizer_cost_hint(const char *module, uint64_t lookups)
{
	struct strbuf link = STRBUF_INIT, debug = STRBUF_INIT;
	uint64_t cost = 3000 * lookups;

	/* Where libdwfl's standard search finds a separate debug file first. */
	cost += elf_cost(module, &debug, &link);
	if (debug.len && access(debug.buf, R_OK) != 0)
		strbuf_reset(&debug);
	if (!debug.len && link.len && !strchr(link.buf, '/')) {
		const char *slash = strrchr(module, '/');
		int dir = slash ? (int)(slash - module) : 0;

		strbuf_addf(&debug, "/usr/lib/debug%.*s/%s", dir, module, link.buf);
		if (access(debug.buf, R_OK) != 0)
			strbuf_reset(&debug);
	}
	if (debug.len)
		cost += elf_cost(debug.buf, NULL, NULL);
	strbuf_release(&link);
	strbuf_release(&debug);
	return cost;
}
