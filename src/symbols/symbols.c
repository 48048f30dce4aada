#include "config.h"

#include "tflame/symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

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
	uint32_t end;    /* index past its last nested function (DIE order) */
};

/* One address range of an outermost function, for the binary search. */
struct sym_top {
	Dwarf_Addr lo, hi;
	uint32_t fn;
};

#define SYM_NO_FN UINT32_MAX

/* The function DIEs of one CU, in DIE order (parents before children). */
struct sym_cu {
	Dwarf_Off off; /* of the CU DIE */
	struct sym_fn *fns;
	size_t nr_fns;
	/*
	 * The ranges of the outermost functions, sorted by start. They do not
	 * overlap in sane DWARF; when they do (tops_overlap), lookups scan
	 * every function as before.
	 */
	struct sym_top *tops;
	size_t nr_tops;
	bool tops_overlap;
};

struct sym_module {
	char *path;            /* owned */
	uint64_t hash;         /* of path */
	Dwfl *dwfl;            /* one session per module; NULL if unreadable */
	Dwfl_Module *mod;      /* borrowed from dwfl */
	GElf_Addr bias;        /* Dwfl address = ELF vaddr + bias */
	struct sym_load *loads;
	size_t nr_loads;
	bool changed;          /* rejected: not the file perf recorded */
	struct sym_cu *cus;    /* indexed on first use */
	size_t nr_cus, alloc_cus, last_cu;
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
};

static const Dwfl_Callbacks sym_offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct symbolizer *
symbolizer_new(void)
{
	struct symbolizer *sym = xcalloc(1, sizeof(*sym));

	intern_init(&sym->strings);
	sym->mask = 1023;
	sym->slots = xcalloc(sym->mask + 1, sizeof(*sym->slots));
	strbuf_init(&sym->scratch, 0);
	return sym;
}

void
symbolizer_free(struct symbolizer *sym)
{
	size_t i, j;

	if (!sym)
		return;
	for (i = 0; i < sym->nr_modules; i++) {
		if (sym->modules[i].dwfl)
			dwfl_end(sym->modules[i].dwfl);
		for (j = 0; j < sym->modules[i].nr_cus; j++) {
			free(sym->modules[i].cus[j].fns);
			free(sym->modules[i].cus[j].tops);
		}
		free(sym->modules[i].cus);
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
	free(sym);
}

static void
sym_module_open(struct sym_module *m)
{
	Elf *elf;
	size_t i, nr;

	m->dwfl = dwfl_begin(&sym_offline_callbacks);
	if (!m->dwfl)
		return;
	dwfl_report_begin(m->dwfl);
	m->mod = dwfl_report_offline(m->dwfl, m->path, m->path, -1);
	if (dwfl_report_end(m->dwfl, NULL, NULL) != 0 || !m->mod)
		goto fail;
	elf = dwfl_module_getelf(m->mod, &m->bias);
	if (!elf || elf_getphdrnum(elf, &nr) != 0)
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
		return;
fail:
	dwfl_end(m->dwfl);
	m->dwfl = NULL;
	m->mod = NULL;
}

/* The index of module path, opening it on first sight. */
static size_t
sym_module_get(struct symbolizer *sym, const char *path)
{
	size_t len = strlen(path), i;
	uint64_t h = hash_bytes(path, len, 0);
	struct sym_module *m;

	if (sym->last_module < sym->nr_modules) {
		m = &sym->modules[sym->last_module];
		if (m->hash == h && !strcmp(m->path, path))
			return sym->last_module;
	}
	for (i = 0; i < sym->nr_modules; i++) {
		m = &sym->modules[i];
		if (m->hash == h && !strcmp(m->path, path))
			return sym->last_module = i;
	}
	if (sym->nr_modules == sym->alloc_modules) {
		sym->alloc_modules = sym->alloc_modules ? 2 * sym->alloc_modules : 8;
		sym->modules = xreallocarray(sym->modules, sym->alloc_modules,
					     sizeof(*sym->modules));
	}
	m = &sym->modules[sym->nr_modules];
	memset(m, 0, sizeof(*m));
	m->path = xstrndup(path, len);
	m->hash = h;
	sym_module_open(m);
	if (m->dwfl)
		sym->stats.modules_opened++;
	else
		sym->stats.modules_unreadable++;
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
	uint32_t *slots = xcalloc(mask + 1, sizeof(*slots));

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

static void
sym_push(struct symbolizer *sym, const char *function, const char *file,
	 unsigned line, Dwarf_Die *die)
{
	struct sym_frame f;
	int decl_line = 0;

	f.function = sym_str(sym, function);
	f.file = sym_str(sym, file);
	f.line = line;
	f.decl_file = NULL;
	f.decl_line = 0;
	/* Both follow DW_AT_abstract_origin and DW_AT_specification. */
	if (die) {
		f.decl_file = sym_str(sym, dwarf_decl_file(die));
		if (dwarf_decl_line(die, &decl_line) == 0 && decl_line > 0)
			f.decl_line = (unsigned)decl_line;
	}
	strbuf_add(&sym->scratch, &f, sizeof(f));
}

static int
sym_top_cmp(const void *a, const void *b)
{
	const struct sym_top *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * After the walk: where each function's nested ones end (they follow it
 * in DIE order), and the sorted ranges of the outermost functions.
 */
static void
sym_cu_index(struct sym_cu *cu)
{
	size_t alloc = 0;

	for (size_t i = cu->nr_fns; i-- > 0;) {
		uint32_t p = cu->fns[i].parent;

		if (cu->fns[i].end < i + 1)
			cu->fns[i].end = (uint32_t)i + 1;
		/* A parent's nested functions end where its last child's do. */
		if (p != SYM_NO_FN && cu->fns[p].end < cu->fns[i].end)
			cu->fns[p].end = cu->fns[i].end;
	}
	for (size_t i = 0; i < cu->nr_fns; i++) {
		Dwarf_Addr base, s, e;
		ptrdiff_t r = 0;

		if (cu->fns[i].parent != SYM_NO_FN)
			continue;
		while ((r = dwarf_ranges(&cu->fns[i].die, r, &base, &s, &e)) > 0) {
			if (s >= e)
				continue;
			if (cu->nr_tops == alloc) {
				alloc = alloc ? 2 * alloc : 64;
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
 * The innermost function of cu holding pc, or SYM_NO_FN: a binary search
 * for the outermost function, then a scan of the functions nested in it.
 * Nested ranges come later in DIE order: the last match is innermost.
 */
static uint32_t
sym_cu_find(struct sym_cu *cu, Dwarf_Addr pc)
{
	size_t first = 0, end = cu->nr_fns, lo = 0, hi = cu->nr_tops;
	uint32_t fn = SYM_NO_FN;

	if (!cu->tops_overlap) {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (cu->tops[mid].lo <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo || pc >= cu->tops[lo - 1].hi)
			return SYM_NO_FN;
		first = cu->tops[lo - 1].fn;
		end = cu->fns[first].end;
	}
	for (size_t i = first; i < end; i++)
		if (pc >= cu->fns[i].lo && pc < cu->fns[i].hi &&
		    dwarf_haspc(&cu->fns[i].die, pc) > 0)
			fn = (uint32_t)i;
	return fn;
}

/*
 * Index the function DIEs of a CU once. dwarf_getscopes() and
 * dwarf_getscopes_die(), which eu-addr2line -i uses, walk the CU's DIE
 * tree from the top on every call: over 200 us an address on a large CU.
 * One walk here records every subprogram and inlined instance that has
 * code, with the function it sits in, so that a lookup only compares
 * address bounds. The walk keeps its own stack: no recursion on DIE depth.
 */
static void
sym_cu_build(struct sym_cu *cu, Dwarf_Die *cudie)
{
	struct dstack {
		Dwarf_Die die;
		uint32_t fn; /* innermost function at or above die */
	} *stack = NULL;
	size_t depth = 0, alloc = 0, alloc_fns = 0;
	Dwarf_Die child;

	if (dwarf_child(cudie, &child) != 0)
		return;
	alloc = 64;
	stack = xreallocarray(NULL, alloc, sizeof(*stack));
	stack[0].die = child;
	stack[0].fn = SYM_NO_FN;
	depth = 1;
	while (depth) {
		struct dstack *top = &stack[depth - 1];
		Dwarf_Die *die = &top->die;
		uint32_t fn = top->fn;
		Dwarf_Addr base, lo = (Dwarf_Addr)-1, hi = 0, s, e;
		ptrdiff_t r = 0;

		if (sym_is_function(die)) {
			while ((r = dwarf_ranges(die, r, &base, &s, &e)) > 0) {
				if (s < lo)
					lo = s;
				if (e > hi)
					hi = e;
			}
			if (lo < hi) {
				if (cu->nr_fns == alloc_fns) {
					alloc_fns = alloc_fns ? 2 * alloc_fns : 64;
					cu->fns = xreallocarray(cu->fns, alloc_fns,
								sizeof(*cu->fns));
				}
				cu->fns[cu->nr_fns].die = *die;
				cu->fns[cu->nr_fns].lo = lo;
				cu->fns[cu->nr_fns].hi = hi;
				cu->fns[cu->nr_fns].parent = fn;
				cu->fns[cu->nr_fns].end = 0;
				fn = (uint32_t)cu->nr_fns++;
			}
		}
		/* Visit the children next, then the siblings. */
		if (dwarf_haschildren(die) > 0 && dwarf_child(die, &child) == 0) {
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
	sym_cu_index(cu);
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
	Dwarf_Die *cudie = dwfl_module_addrdie(m->mod, addr, &cubias);
	Dwarf_Files *files = NULL;
	struct sym_cu *cu;
	Dwfl_Line *dl;
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
	dl = dwfl_module_getsrc(m->mod, addr);
	if (dl)
		file = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL);
	if (dwarf_getsrcfiles(cudie, &files, NULL) != 0)
		files = NULL;
	for (; fn != SYM_NO_FN; fn = cu->fns[fn].parent) {
		Dwarf_Die *die = &cu->fns[fn].die;
		Dwarf_Attribute attr;
		Dwarf_Word w;

		sym_push(sym, sym_die_name(die), file, line > 0 ? (unsigned)line : 0, die);
		if (dwarf_tag(die) != DW_TAG_inlined_subroutine)
			break;
		/* The next frame is at this one's call site. */
		file = NULL;
		line = 0;
		if (files && dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &w) == 0)
			file = dwarf_filesrc(files, w, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &w) == 0)
			line = (int)w;
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

/*
 * The source file of a local ELF symbol with no DWARF: the STT_FILE symbol
 * before it in the table, as addr2line reports it (crtstuff.c for
 * __do_global_dtors_aux). Global symbols come after every file's locals,
 * so they have none. A linear walk: only for addresses DWARF cannot
 * answer, each asked once.
 */
static const char *
sym_local_file(const struct sym_module *m, const char *name, const GElf_Sym *target)
{
	const char *file = NULL;
	int nr = dwfl_module_getsymtab(m->mod);

	for (int i = 1; i < nr; i++) {
		GElf_Sym es;
		GElf_Addr a;
		const char *n = dwfl_module_getsym_info(m->mod, i, &es, &a, NULL, NULL, NULL);

		if (!n)
			continue;
		if (GELF_ST_TYPE(es.st_info) == STT_FILE)
			file = *n ? n : NULL;
		else if (es.st_value == target->st_value && es.st_info == target->st_info &&
			 !strcmp(n, name))
			return file;
	}
	return NULL;
}

/* Resolve into sym->scratch (an array of struct sym_frame). */
static void
sym_lookup(struct symbolizer *sym, struct sym_module *m, uint64_t off)
{
	const struct sym_frame *frames;
	Dwarf_Addr addr;
	const char *name;
	GElf_Sym elfsym;
	GElf_Off symoff;

	strbuf_setlen(&sym->scratch, 0);
	if (!m->dwfl || m->changed || !sym_offset_addr(m, off, &addr))
		return;
	sym_dwarf_frames(sym, m, addr);
	if (sym->scratch.len) {
		frames = (const struct sym_frame *)sym->scratch.buf;
		if (frames[0].function)
			return;
		strbuf_setlen(&sym->scratch, 0);
	}
	/* A linear search of the symbol table: only when DWARF has nothing. */
	name = dwfl_module_addrinfo(m->mod, addr, &symoff, &elfsym, NULL, NULL,
				    NULL);
	/* No DWARF for it: the ELF symbol, with a line if one is known. */
	if (name) {
		Dwfl_Line *dl = dwfl_module_getsrc(m->mod, addr);
		const char *file = NULL;
		int line = 0;

		if (dl)
			file = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL);
		if (!file && GELF_ST_BIND(elfsym.st_info) == STB_LOCAL)
			file = sym_local_file(m, name, &elfsym);
		sym_push(sym, name, file, line > 0 ? (unsigned)line : 0, NULL);
	}
}

int
symbolizer_resolve(struct symbolizer *sym, const char *module, uint64_t addr,
		   struct sym_result *out)
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
	if (!e->nr_frames)
		sym->stats.unresolved++;
	sym->slots[s] = (uint32_t)(++sym->nr_entries);
	if (2 * sym->nr_entries > sym->mask)
		sym_slots_grow(sym);
	out->frames = e->frames;
	out->nr_frames = e->nr_frames;
	return e->nr_frames > 0;
}

int
symbolizer_name_at(struct symbolizer *sym, const char *module, uint64_t addr,
		   const char *name)
{
	size_t mi = sym_module_get(sym, module); /* may move sym->modules */
	struct sym_module *m = &sym->modules[mi];
	int nr, seen = 0;
	Dwarf_Addr a;

	if (!m->dwfl || !sym_offset_addr(m, addr, &a))
		return m->dwfl ? 0 : -1;
	nr = dwfl_module_getsymtab(m->mod);
	for (int i = 1; i < nr; i++) {
		GElf_Sym es;
		GElf_Addr start;
		const char *n = dwfl_module_getsym_info(m->mod, i, &es, &start, NULL, NULL,
							NULL);

		if (!n || strcmp(n, name))
			continue;
		seen = 1;
		if (a >= start && a - start < (es.st_size ? es.st_size : 1))
			return 1;
	}
	return seen ? 0 : -1;
}

void
symbolizer_reject_module(struct symbolizer *sym, const char *module)
{
	size_t mi = sym_module_get(sym, module); /* may move sym->modules */
	struct sym_module *m = &sym->modules[mi];

	if (m->dwfl && !m->changed) {
		m->changed = true;
		sym->stats.modules_changed++;
	}
}

void
symbolizer_stats(const struct symbolizer *sym, struct sym_stats *st)
{
	*st = sym->stats;
}

int
symbolizer_summary(const struct symbolizer *sym, struct strbuf *sb)
{
	const struct sym_stats *st = &sym->stats;
	const char *sep = " (";
	size_t i;

	if (!st->unresolved && !st->modules_unreadable && !st->modules_changed)
		return 0;
	strbuf_addf(sb, "symbols: %llu address%s not resolved",
		    (unsigned long long)st->unresolved,
		    st->unresolved == 1 ? "" : "es");
	if (st->modules_changed) {
		strbuf_addf(sb, ", %lu module%s changed since the recording",
			    (unsigned long)st->modules_changed,
			    st->modules_changed == 1 ? "" : "s");
		for (i = 0; i < sym->nr_modules; i++) {
			if (!sym->modules[i].changed)
				continue;
			strbuf_addf(sb, "%s%s", sep, sym->modules[i].path);
			sep = ", ";
		}
		if (*sep == ',')
			strbuf_addch(sb, ')');
		sep = " (";
	}
	if (!st->modules_unreadable)
		return 1;
	strbuf_addf(sb, ", %lu module%s unreadable",
		    (unsigned long)st->modules_unreadable,
		    st->modules_unreadable == 1 ? "" : "s");
	for (i = 0; i < sym->nr_modules; i++) {
		if (sym->modules[i].dwfl)
			continue;
		strbuf_addf(sb, "%s%s", sep, sym->modules[i].path);
		sep = ", ";
	}
	strbuf_addch(sb, ')');
	return 1;
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

		bad += !m->dwfl;
		for (c = 0; c < m->nr_cus; c++)
			for (f = 0; f < m->cus[c].nr_fns; f++) {
				const struct sym_fn *fn = &m->cus[c].fns[f];

				if (fn->lo >= fn->hi || (fn->parent != SYM_NO_FN &&
							 fn->parent >= f))
					return tf_error_set(err, "symbolizer: %s: "
							    "bad function %zu "
							    "in cu %zu", m->path,
							    f, c);
			}
	}
	if (unresolved != sym->stats.unresolved ||
	    bad != sym->stats.modules_unreadable ||
	    sym->nr_modules - bad != sym->stats.modules_opened)
		return tf_error_set(err, "symbolizer: counters do not match "
				    "the cache");
	return 0;
}
