#include "config.h"

#include "tflame/symbols.h"

#include <gelf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_tmpdir.h"
#include "test_util.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * The symbolizer against addr2line: a tiny program is compiled with
 * -g -O2 in a temporary directory, and every byte of outer() is resolved
 * both ways. inner() is inlined into middle(), which is inlined into
 * outer(); the line numbers below are the source's own.
 */
#define LINE_INNER_LOOP 7   /* the loop body of inner() */
#define LINE_CALL_INNER 13  /* middle() calls inner() */
#define LINE_CALL_MIDDLE 18 /* outer() calls middle() */

static const char prog_src[] =
	"#include <stdio.h>\n"                                         /* 1 */
	"static volatile unsigned long sink;\n"                        /* 2 */
	"static inline __attribute__((always_inline)) unsigned long\n" /* 3 */
	"inner(unsigned long x)\n"                                     /* 4 */
	"{\n"                                                          /* 5 */
	"\tfor (int i = 0; i < 100; i++)\n"                            /* 6 */
	"\t\tx = x * 6364136223846793005UL + sink;\n"                  /* 7 */
	"\treturn x;\n"                                                /* 8 */
	"}\n"                                                          /* 9 */
	"static inline __attribute__((always_inline)) unsigned long\n" /* 10 */
	"middle(unsigned long x)\n"                                    /* 11 */
	"{\n"                                                          /* 12 */
	"\treturn inner(x) ^ (12345 + sink);\n"                        /* 13 */
	"}\n"                                                          /* 14 */
	"__attribute__((noinline)) unsigned long\n"                    /* 15 */
	"outer(unsigned long x)\n"                                     /* 16 */
	"{\n"                                                          /* 17 */
	"\treturn middle(x) * 3 + sink;\n"                             /* 18 */
	"}\n"                                                          /* 19 */
	"int\n"                                                        /* 20 */
	"main(int argc, char **argv)\n"                                /* 21 */
	"{\n"                                                          /* 22 */
	"\t(void)argv;\n"                                              /* 23 */
	"\tprintf(\"%lu\\n\", outer((unsigned long)argc));\n"          /* 24 */
	"\treturn 0;\n"                                                /* 25 */
	"}\n";                                                         /* 26 */

struct fixture {
	void *td;     /* struct tmpdir, from tmpdir_setup() */
	char *src;    /* prog.c */
	char *pie;    /* -g -O2, the compiler's default (PIE here) */
	char *nopie;  /* -g -O2 -no-pie, or NULL if that does not link */
	char *nodbg;  /* -O2 without -g: ELF symbols only */
	char *dwarf4; /* -gdwarf-4, of prog.c named relatively: the older header */
	int have_a2l; /* addr2line runs */
};

static char *
compile(void **td, const char *src, const char *out, const char *flags)
{
	struct strbuf cmd = STRBUF_INIT;
	char *path = xstrdup(tmpdir_path(td, out));
	int rc;

	strbuf_addf(&cmd, "cc -g -O2 %s -o '%s' '%s' 2>/dev/null", flags, path,
		    src);
	rc = system(cmd.buf);
	strbuf_release(&cmd);
	if (rc != 0) {
		free(path);
		return NULL;
	}
	return path;
}

/*
 * Compile src, a file of the temporary directory, there and named
 * relatively: the line program then names it "src" in directory 0, the
 * compilation directory, and a reader must put the two together.
 */
static char *
compile_here(void **td, const char *cc, const char *src, const char *out,
	     const char *flags)
{
	struct strbuf cmd = STRBUF_INIT;
	char *path = xstrdup(tmpdir_path(td, out));
	int rc;

	strbuf_addf(&cmd, "cd '%s' && %s -g -O2 %s -o '%s' '%s' 2>/dev/null",
		    ((struct tmpdir *)*td)->dir, cc, flags, path, src);
	rc = system(cmd.buf);
	strbuf_release(&cmd);
	if (rc != 0) {
		free(path);
		return NULL;
	}
	return path;
}

static int
group_setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));

	if (tmpdir_setup(&fx->td))
		return -1;
	fx->src = xstrdup(tmpdir_put(&fx->td, "prog.c", prog_src,
				     sizeof(prog_src) - 1));
	fx->pie = compile(&fx->td, fx->src, "prog", "");
	if (fx->pie)
		fx->nopie = compile(&fx->td, fx->src, "prog-nopie", "-no-pie");
	fx->nodbg = compile(&fx->td, fx->src, "prog-nodbg", "-g0");
	fx->dwarf4 = compile_here(&fx->td, "cc", "prog.c", "prog-dwarf4", "-gdwarf-4");
	fx->have_a2l = system("addr2line --version >/dev/null 2>&1") == 0;
	*state = fx;
	return 0;
}

static int
group_teardown(void **state)
{
	struct fixture *fx = *state;

	tmpdir_teardown(&fx->td);
	free(fx->src);
	free(fx->pie);
	free(fx->nopie);
	free(fx->nodbg);
	free(fx->dwarf4);
	free(fx);
	return 0;
}

static void
check_sym(const struct symbolizer *sym)
{
	struct tf_error err = TF_ERROR_INIT;

	if (symbolizer_check(sym, &err))
		fail_msg("symbolizer_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

/* From the ELF itself: outer()'s address and size, and its PT_LOADs. */
struct elf_facts {
	uint64_t outer, outer_size;
	GElf_Phdr loads[16];
	size_t nr_loads;
};

static void
read_elf(const char *path, struct elf_facts *ef)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t i, nr;

	memset(ef, 0, sizeof(*ef));
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getphdrnum(elf, &nr), 0);
	for (i = 0; i < nr && ef->nr_loads < 16; i++) {
		GElf_Phdr ph;

		assert_non_null(gelf_getphdr(elf, (int)i, &ph));
		if (ph.p_type == PT_LOAD)
			ef->loads[ef->nr_loads++] = ph;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(data, (int)i, &s))
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (name && !strcmp(name, "outer") &&
			    GELF_ST_TYPE(s.st_info) == STT_FUNC) {
				ef->outer = s.st_value;
				ef->outer_size = s.st_size;
			}
		}
	}
	elf_end(elf);
	close(fd);
	assert_true(ef->outer != 0);
	assert_true(ef->outer_size > 0);
}

/* The file offset perf would print for vaddr. */
static uint64_t
vaddr_to_offset(const struct elf_facts *ef, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < ef->nr_loads; i++)
		if (vaddr >= ef->loads[i].p_vaddr &&
		    vaddr - ef->loads[i].p_vaddr < ef->loads[i].p_filesz)
			return vaddr - ef->loads[i].p_vaddr + ef->loads[i].p_offset;
	fail_msg("no PT_LOAD holds 0x%llx", (unsigned long long)vaddr);
	return 0;
}

/* addr2line's answer for one address, one frame per line. */
struct a2l_frame {
	char *function, *file;
	unsigned line;
};

/*
 * Run addr2line -f -i -a on every address of outer(); returns the frames
 * in one array, with starts[k] the first frame of address k (and starts[n]
 * the end).
 */
static struct a2l_frame *
run_addr2line(const char *prog, const struct elf_facts *ef, size_t *starts)
{
	struct strbuf cmd = STRBUF_INIT;
	struct a2l_frame *frames = NULL;
	size_t nr = 0, alloc = 0, k = 0;
	char fn[4096], loc[4096];
	FILE *p;
	uint64_t a;

	strbuf_addf(&cmd, "addr2line -f -i -a -e '%s'", prog);
	for (a = ef->outer; a < ef->outer + ef->outer_size; a++)
		strbuf_addf(&cmd, " 0x%llx", (unsigned long long)a);
	p = popen(cmd.buf, "r");
	assert_non_null(p);
	while (fgets(fn, sizeof(fn), p)) {
		char *colon, *disc;

		fn[strcspn(fn, "\n")] = '\0';
		if (!strncmp(fn, "0x", 2)) {
			starts[k++] = nr;
			continue;
		}
		assert_non_null(fgets(loc, sizeof(loc), p));
		loc[strcspn(loc, "\n")] = '\0';
		disc = strstr(loc, " (discriminator");
		if (disc)
			*disc = '\0';
		if (nr == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			frames = xreallocarray(frames, alloc, sizeof(*frames));
		}
		colon = strrchr(loc, ':');
		assert_non_null(colon);
		*colon = '\0';
		frames[nr].function = xstrdup(fn);
		frames[nr].file = xstrdup(loc);
		frames[nr].line = (unsigned)strtoul(colon + 1, NULL, 10);
		nr++;
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(k, ef->outer_size);
	starts[k] = nr;
	strbuf_release(&cmd);
	return frames;
}

/*
 * Resolve all of outer() in prog; compare with addr2line and the source.
 * Without lines (symbolizer_set_lines()), the innermost frame has no
 * file:line and everything else must be the same, the declarations too:
 * a second symbolizer, with lines, says what they are.
 */
static void
check_against_addr2line(const struct fixture *fx, const char *prog, bool lines)
{
	struct symbolizer *sym = symbolizer_new();
	struct symbolizer *ref = symbolizer_new();
	struct elf_facts ef;
	struct a2l_frame *a2l;
	size_t *starts, k, i, chains = 0;

	if (!fx->have_a2l)
		skip();
	symbolizer_set_lines(sym, lines);
	read_elf(prog, &ef);
	starts = xcalloc(ef.outer_size + 1, sizeof(*starts));
	a2l = run_addr2line(prog, &ef, starts);
	for (k = 0; k < ef.outer_size; k++) {
		uint64_t off = vaddr_to_offset(&ef, ef.outer + k);
		size_t n = starts[k + 1] - starts[k];
		struct sym_result r, with_lines;

		assert_int_equal(symbolizer_resolve(sym, prog, off, &r), 1);
		assert_int_equal(symbolizer_resolve(ref, prog, off, &with_lines), 1);
		if (r.nr_frames != n)
			fail_msg("0x%llx: %zu frames, addr2line has %zu",
				 (unsigned long long)(ef.outer + k),
				 r.nr_frames, n);
		assert_int_equal(with_lines.nr_frames, n);
		for (i = 0; i < n; i++) {
			const struct a2l_frame *want = &a2l[starts[k] + i];
			const struct sym_frame *got = &r.frames[i];
			const struct sym_frame *decl = &with_lines.frames[i];

			assert_string_equal(got->function, want->function);
			if (!lines && i == 0) {
				assert_null(got->file);
				assert_int_equal(got->line, 0);
			} else if (!strcmp(want->file, "??")) {
				assert_null(got->file);
			} else {
				assert_non_null(got->file);
				assert_string_equal(got->file, want->file);
			}
			if (lines || i > 0)
				assert_int_equal(got->line, want->line);
			assert_non_null(decl->decl_file);
			assert_non_null(got->decl_file);
			assert_string_equal(got->decl_file, decl->decl_file);
			assert_int_equal(got->decl_line, decl->decl_line);
		}
		/* The outermost frame is always outer() itself. */
		assert_string_equal(r.frames[n - 1].function, "outer");
		if (n == 3) {
			assert_string_equal(r.frames[0].function, "inner");
			assert_string_equal(r.frames[1].function, "middle");
			assert_int_equal(r.frames[1].line, LINE_CALL_INNER);
			assert_int_equal(r.frames[2].line, LINE_CALL_MIDDLE);
			assert_string_equal(r.frames[2].file, fx->src);
			assert_string_equal(r.frames[0].decl_file, fx->src);
			if (with_lines.frames[0].line == LINE_INNER_LOOP)
				chains++;
		}
	}
	/* Some instruction of the loop body sits three frames deep. */
	assert_true(chains > 0);
	for (i = 0; i < starts[ef.outer_size]; i++) {
		free(a2l[i].function);
		free(a2l[i].file);
	}
	free(a2l);
	free(starts);
	check_sym(sym);
	check_sym(ref);
	symbolizer_free(sym);
	symbolizer_free(ref);
}

static void
test_inline_chain_pie(void **state)
{
	struct fixture *fx = *state;

	if (!fx->pie)
		skip();
	check_against_addr2line(fx, fx->pie, true);
}

/* Here perf's file offsets and the ELF's addresses differ by 0x400000. */
static void
test_inline_chain_nopie(void **state)
{
	struct fixture *fx = *state;

	if (!fx->nopie)
		skip();
	check_against_addr2line(fx, fx->nopie, true);
}

static void
test_inline_chain_dwarf4(void **state)
{
	struct fixture *fx = *state;

	if (!fx->dwarf4)
		skip();
	check_against_addr2line(fx, fx->dwarf4, true);
}

/*
 * Without .debug_aranges, which Clang and rustc leave out unless asked,
 * libdwfl finds no unit for an address: the units' own ranges do, as
 * addr2line reads them. prog without its .debug_aranges, then built by
 * Clang where there is one: the same inline chains and lines as addr2line.
 */
static void
test_inline_chain_no_aranges(void **state)
{
	struct fixture *fx = *state;
	struct strbuf cmd = STRBUF_INIT;
	char *path, *clang;

	if (!fx->pie)
		skip();
	path = xstrdup(tmpdir_path(&fx->td, "prog-noaranges"));
	strbuf_addf(&cmd, "objcopy --remove-section .debug_aranges '%s' '%s' && "
		    "! readelf -S '%s' | grep -q debug_aranges", fx->pie, path, path);
	if (system(cmd.buf) != 0)
		fail_msg("cannot remove .debug_aranges: %s", cmd.buf);
	check_against_addr2line(fx, path, true);
	check_against_addr2line(fx, path, false);
	clang = system("clang --version >/dev/null 2>&1") == 0 ?
		compile_here(&fx->td, "clang", "prog.c", "prog-clang", "") : NULL;
	if (clang) {
		strbuf_reset(&cmd);
		strbuf_addf(&cmd, "readelf -S '%s' | grep -q debug_aranges", clang);
		assert_int_not_equal(system(cmd.buf), 0);
		check_against_addr2line(fx, clang, true);
	}
	strbuf_release(&cmd);
	free(clang);
	free(path);
}

/*
 * A second program, for file indices other than the main file's: outer()
 * calls twice(), inlined from a header. Both are named relatively.
 */
static const char two_src[] =
	"#include \"twice.h\"\n"
	"static volatile unsigned long sink;\n"
	"__attribute__((noinline)) unsigned long\n"
	"outer(unsigned long x)\n"
	"{\n"
	"\treturn twice(x) + sink;\n"
	"}\n"
	"int\n"
	"main(int argc, char **argv)\n"
	"{\n"
	"\t(void)argv;\n"
	"\treturn (int)outer((unsigned long)argc);\n"
	"}\n";

static const char twice_src[] =
	"static inline __attribute__((always_inline)) unsigned long\n"
	"twice(unsigned long x)\n"
	"{\n"
	"\tfor (int i = 0; i < 50; i++)\n"
	"\t\tx = x * 2862933555777941757UL + 3037000493UL;\n"
	"\treturn x;\n"
	"}\n";

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/*
 * Every byte of outer() in prog, without lines and with: the same frames,
 * declarations and call sites, and twice()'s declaration in its header.
 */
static void
check_header_files(const char *prog)
{
	struct symbolizer *sym = symbolizer_new(), *ref = symbolizer_new();
	struct elf_facts ef;
	size_t in_header = 0;

	symbolizer_set_lines(sym, false);
	read_elf(prog, &ef);
	for (uint64_t k = 0; k < ef.outer_size; k++) {
		uint64_t off = vaddr_to_offset(&ef, ef.outer + k);
		struct sym_result r, want;

		assert_int_equal(symbolizer_resolve(sym, prog, off, &r), 1);
		assert_int_equal(symbolizer_resolve(ref, prog, off, &want), 1);
		assert_int_equal(r.nr_frames, want.nr_frames);
		assert_null(r.frames[0].file);
		assert_int_equal(r.frames[0].line, 0);
		for (size_t i = 0; i < r.nr_frames; i++) {
			assert_string_equal(r.frames[i].function, want.frames[i].function);
			assert_non_null(r.frames[i].decl_file);
			assert_string_equal(r.frames[i].decl_file, want.frames[i].decl_file);
			assert_int_equal(r.frames[i].decl_line, want.frames[i].decl_line);
			if (i == 0)
				continue;
			assert_non_null(r.frames[i].file);
			assert_string_equal(r.frames[i].file, want.frames[i].file);
			assert_true(ends_with(r.frames[i].file, "/two.c"));
			assert_int_equal(r.frames[i].line, want.frames[i].line);
		}
		if (r.nr_frames == 2) {
			assert_true(ends_with(r.frames[0].decl_file, "/twice.h"));
			in_header++;
		}
	}
	assert_true(in_header > 0);
	check_sym(sym);
	check_sym(ref);
	symbolizer_free(sym);
	symbolizer_free(ref);
}

/*
 * Clang's DWARF 5 declares the CU's own functions in file 0, which libdw
 * 0.188's dwarf_decl_file() leaves unnamed; the header reader names it,
 * with lines and without. (-gdwarf-aranges: libdw 0.188 finds no CU for
 * an address without .debug_aranges.) Only where there is a clang.
 */
static void
check_clang_file0(struct fixture *fx)
{
	struct elf_facts ef;
	char *prog;

	if (system("clang --version >/dev/null 2>&1") != 0)
		return;
	prog = compile_here(&fx->td, "clang", "two.c", "two-clang",
			    "-gdwarf-5 -gdwarf-aranges");
	if (!prog)
		fail_msg("cannot compile two.c with clang");
	read_elf(prog, &ef);
	for (int lines = 0; lines < 2; lines++) {
		struct symbolizer *sym = symbolizer_new();
		struct sym_result r;

		symbolizer_set_lines(sym, lines);
		assert_int_equal(symbolizer_resolve(sym, prog,
						    vaddr_to_offset(&ef, ef.outer), &r), 1);
		assert_string_equal(r.frames[r.nr_frames - 1].function, "outer");
		assert_non_null(r.frames[r.nr_frames - 1].decl_file);
		assert_true(ends_with(r.frames[r.nr_frames - 1].decl_file, "/two.c"));
		check_sym(sym);
		symbolizer_free(sym);
	}
	free(prog);
}

/*
 * File names from the line program's header alone, DWARF 5 and 4: against
 * addr2line, then against the names libdw gives with its line tables.
 */
static void
test_no_lines(void **state)
{
	struct fixture *fx = *state;
	const char *versions[] = { "-gdwarf-5", "-gdwarf-4" };
	char out[32];

	if (!fx->pie || !fx->dwarf4)
		skip();
	check_against_addr2line(fx, fx->pie, false);
	check_against_addr2line(fx, fx->dwarf4, false);
	tmpdir_put(&fx->td, "two.c", two_src, sizeof(two_src) - 1);
	tmpdir_put(&fx->td, "twice.h", twice_src, sizeof(twice_src) - 1);
	for (size_t v = 0; v < ARRAY_SIZE(versions); v++) {
		char *prog;

		snprintf(out, sizeof(out), "two%s", versions[v]);
		prog = compile_here(&fx->td, "cc", "two.c", out, versions[v]);
		if (!prog)
			fail_msg("cannot compile two.c with %s", versions[v]);
		check_header_files(prog);
		free(prog);
	}
	check_clang_file0(fx);
}

/* Without DWARF the ELF symbol table names the function, with no line. */
static void
test_no_debuginfo(void **state)
{
	struct fixture *fx = *state;
	struct symbolizer *sym;
	struct sym_result r;
	struct elf_facts ef;

	if (!fx->nodbg)
		skip();
	read_elf(fx->nodbg, &ef);
	sym = symbolizer_new();
	assert_int_equal(symbolizer_resolve(sym, fx->nodbg,
					    vaddr_to_offset(&ef, ef.outer + 1), &r), 1);
	assert_int_equal(r.nr_frames, 1);
	assert_string_equal(r.frames[0].function, "outer");
	assert_null(r.frames[0].file);
	assert_int_equal(r.frames[0].line, 0);
	check_sym(sym);
	symbolizer_free(sym);
}

static void
test_cache(void **state)
{
	struct fixture *fx = *state;
	struct symbolizer *sym;
	struct sym_result r1, r2, r3;
	struct sym_stats st;
	struct elf_facts ef;
	uint64_t off;

	if (!fx->pie)
		skip();
	read_elf(fx->pie, &ef);
	off = vaddr_to_offset(&ef, ef.outer);
	sym = symbolizer_new();
	assert_int_equal(symbolizer_resolve(sym, fx->pie, off, &r1), 1);
	check_sym(sym);
	assert_int_equal(symbolizer_resolve(sym, fx->pie, off, &r2), 1);
	check_sym(sym);
	assert_ptr_equal(r1.frames, r2.frames);
	assert_int_equal(r1.nr_frames, r2.nr_frames);
	assert_int_equal(symbolizer_resolve(sym, fx->pie, off + 1, &r3), 1);
	check_sym(sym);
	symbolizer_stats(sym, &st);
	assert_int_equal(st.lookups, 3);
	assert_int_equal(st.cache_hits, 1);
	assert_int_equal(st.modules_opened, 1);
	assert_int_equal(st.modules_unreadable, 0);
	assert_int_equal(st.unresolved, 0);
	/* Earlier answers stay valid while the cache grows. */
	for (off = 0; off < 5000; off++)
		symbolizer_resolve(sym, fx->pie, off, &r3);
	check_sym(sym);
	assert_string_equal(r1.frames[r1.nr_frames - 1].function, "outer");
	symbolizer_stats(sym, &st);
	assert_int_equal(st.modules_opened, 1);
	symbolizer_free(sym);
}

static void
test_unreadable(void **state)
{
	struct fixture *fx = *state;
	struct symbolizer *sym = symbolizer_new();
	struct strbuf sb = STRBUF_INIT;
	struct sym_result r;
	struct sym_stats st;
	const char *junk = tmpdir_put(&fx->td, "junk.so", "not an elf\n", 11);
	char *junk_path = xstrdup(junk);
	char *missing = xstrdup(tmpdir_path(&fx->td, "missing.so"));

	assert_int_equal(symbolizer_summary(sym, &sb), 0);
	assert_int_equal(sb.len, 0);
	assert_int_equal(symbolizer_resolve(sym, missing, 0x1234, &r), 0);
	assert_int_equal(r.nr_frames, 0);
	assert_int_equal(symbolizer_resolve(sym, junk_path, 0x10, &r), 0);
	assert_int_equal(symbolizer_resolve(sym, missing, 0x1234, &r), 0);
	assert_int_equal(symbolizer_resolve(sym, missing, 0x5678, &r), 0);
	check_sym(sym);
	symbolizer_stats(sym, &st);
	assert_int_equal(st.modules_unreadable, 2);
	assert_int_equal(st.modules_opened, 0);
	assert_int_equal(st.unresolved, 3);
	assert_int_equal(st.cache_hits, 1);
	assert_int_equal(symbolizer_summary(sym, &sb), 1);
	assert_null(strchr(sb.buf, '\n'));
	assert_non_null(strstr(sb.buf, "3 addresses not resolved"));
	assert_non_null(strstr(sb.buf, "2 modules unreadable"));
	assert_non_null(strstr(sb.buf, missing));
	assert_non_null(strstr(sb.buf, junk_path));
	strbuf_release(&sb);
	free(junk_path);
	free(missing);
	symbolizer_free(sym);
}

/* Workers' symbolizers summed in one line, each module named once. */
static void
test_summary_many(void **state)
{
	struct fixture *fx = *state;
	struct symbolizer *a = symbolizer_new(), *b = symbolizer_new();
	const struct symbolizer *both[2] = { a, b };
	struct strbuf sb = STRBUF_INIT;
	struct sym_result r;
	char *missing = xstrdup(tmpdir_path(&fx->td, "missing.so"));
	char *gone = xstrdup(tmpdir_path(&fx->td, "gone.so"));
	const char *first;

	assert_int_equal(symbolizer_summary_many(both, 2, &sb), 0);
	assert_int_equal(sb.len, 0);
	assert_int_equal(symbolizer_resolve(a, missing, 0x10, &r), 0);
	assert_int_equal(symbolizer_resolve(a, missing, 0x20, &r), 0);
	assert_int_equal(symbolizer_resolve(b, missing, 0x30, &r), 0);
	assert_int_equal(symbolizer_resolve(b, gone, 0x40, &r), 0);
	assert_int_equal(symbolizer_summary_many(both, 2, &sb), 1);
	assert_non_null(strstr(sb.buf, "symbols: 4 addresses not resolved, 2 modules unreadable ("));
	first = strstr(sb.buf, missing);
	assert_non_null(first);
	assert_null(strstr(first + 1, missing));
	assert_non_null(strstr(sb.buf, gone));
	assert_int_equal(sb.buf[sb.len - 1], ')');
	/* One symbolizer alone says only its own. */
	strbuf_reset(&sb);
	assert_int_equal(symbolizer_summary(a, &sb), 1);
	assert_null(strstr(sb.buf, gone));
	assert_non_null(strstr(sb.buf, "2 addresses not resolved, 1 module unreadable"));
	strbuf_release(&sb);
	free(missing);
	free(gone);
	symbolizer_free(a);
	symbolizer_free(b);
}

static void
test_outside_function(void **state)
{
	struct fixture *fx = *state;
	struct symbolizer *sym;
	struct strbuf sb = STRBUF_INIT;
	struct sym_result r;
	struct sym_stats st;

	if (!fx->pie)
		skip();
	sym = symbolizer_new();
	/* The ELF header: mapped, but no function is there. */
	assert_int_equal(symbolizer_resolve(sym, fx->pie, 0, &r), 0);
	assert_int_equal(r.nr_frames, 0);
	/* Past the end of the file: in no segment at all. */
	assert_int_equal(symbolizer_resolve(sym, fx->pie, UINT64_C(1) << 40, &r), 0);
	check_sym(sym);
	symbolizer_stats(sym, &st);
	assert_int_equal(st.modules_opened, 1);
	assert_int_equal(st.unresolved, 2);
	assert_int_equal(symbolizer_summary(sym, &sb), 1);
	assert_string_equal(sb.buf, "symbols: 2 addresses not resolved");
	strbuf_release(&sb);
	symbolizer_free(sym);
}

/*
 * tests/data/symbols/tiny: prog.c built once with gcc 12 -g -O2 and
 * committed, so that these answers do not depend on the compiler here.
 * The addresses are file offsets, as perf prints them, read off
 * objdump -d: 0x11a4 is in the loop of inner() inlined through middle()
 * into outer(); 0x11fb is in driver()'s call to outer() (the return
 * address 0x11fc, less one); 0x11d2 is padding after outer(); 0x1148 is
 * in crtstuff.c's __do_global_dtors_aux and 0x10a4 in _start, which have
 * ELF symbols but no DWARF.
 */
static char *
data_path(const char *name)
{
	return test_data_path("symbols", name);
}

static char *
tiny_path(void)
{
	return data_path("tiny");
}

static void
check_frame(const struct sym_frame *f, const char *function, unsigned line,
	    unsigned decl_line)
{
	assert_string_equal(f->function, function);
	assert_non_null(f->file);
	assert_string_equal(f->file, "./prog.c");
	assert_int_equal(f->line, line);
	assert_non_null(f->decl_file);
	assert_string_equal(f->decl_file, "./prog.c");
	assert_int_equal(f->decl_line, decl_line);
}

/*
 * The cost hint prices what a module will take to read: tiny's symbols
 * and DWARF, stripped's .dynsym alone (far less), and for a file that is
 * not ELF or not there, the lookups alone.
 */
static void
test_cost_hint(void **state)
{
	struct fixture *fx = *state;
	char *tiny = tiny_path(), *stripped = data_path("stripped");
	const char *junk = tmpdir_put(&fx->td, "junk.so", "not an elf\n", 11);
	uint64_t t = symbolizer_cost_hint(tiny, 0), s = symbolizer_cost_hint(stripped, 0);

	/* tiny: a .symtab of dozens of symbols and 8 DWARF sections. */
	assert_true(t > 10000);
	assert_true(s > 0);
	assert_true(s < t);
	/* Each lookup adds the same, whatever the file. */
	assert_true(symbolizer_cost_hint(tiny, 10) > t);
	assert_int_equal(symbolizer_cost_hint(tiny, 10) - t,
			 symbolizer_cost_hint(stripped, 10) - s);
	assert_int_equal(symbolizer_cost_hint(junk, 0), 0);
	assert_int_equal(symbolizer_cost_hint(tmpdir_path(&fx->td, "missing.so"), 0), 0);
	assert_int_equal(symbolizer_cost_hint(junk, 4), symbolizer_cost_hint(junk, 0) + 12000);
	free(tiny);
	free(stripped);
}

static void
test_prebuilt_inline_chain(void **state)
{
	char *tiny = tiny_path();
	struct symbolizer *sym = symbolizer_new();
	struct sym_result r;

	(void)state;
	assert_int_equal(symbolizer_resolve(sym, tiny, 0x11a4, &r), 1);
	assert_int_equal(r.nr_frames, 3);
	check_frame(&r.frames[0], "inner", 27, 24);
	check_frame(&r.frames[1], "middle", 34, 32);
	check_frame(&r.frames[2], "outer", 40, 38);
	assert_int_equal(symbolizer_resolve(sym, tiny, 0x11fb, &r), 1);
	assert_int_equal(r.nr_frames, 1);
	check_frame(&r.frames[0], "driver", 49, 44);
	/* outer()'s last instruction is its own; the padding after it is nobody's. */
	assert_int_equal(symbolizer_resolve(sym, tiny, 0x11d1, &r), 1);
	check_frame(&r.frames[0], "outer", 41, 38);
	assert_int_equal(symbolizer_resolve(sym, tiny, 0x11d2, &r), 0);
	/*
	 * No DWARF there: the ELF symbol, and for a local one the file of the
	 * STT_FILE symbol before it, with no line, as addr2line says.
	 */
	assert_int_equal(symbolizer_resolve(sym, tiny, 0x1148, &r), 1);
	assert_int_equal(r.nr_frames, 1);
	assert_string_equal(r.frames[0].function, "__do_global_dtors_aux");
	assert_non_null(r.frames[0].file);
	assert_string_equal(r.frames[0].file, "crtstuff.c");
	assert_int_equal(r.frames[0].line, 0);
	assert_null(r.frames[0].decl_file);
	assert_int_equal(symbolizer_resolve(sym, tiny, 0x10a4, &r), 1);
	assert_string_equal(r.frames[0].function, "_start");
	assert_null(r.frames[0].file);
	check_sym(sym);
	symbolizer_free(sym);
	free(tiny);
}

/*
 * Without lines: the same chain, names, declarations and call sites as
 * test_prebuilt_inline_chain() has, but no file:line for the innermost
 * frame, not even an ELF symbol's STT_FILE.
 */
static void
test_prebuilt_no_lines(void **state)
{
	char *tiny = tiny_path();
	struct symbolizer *sym = symbolizer_new();
	struct sym_result r;

	(void)state;
	symbolizer_set_lines(sym, false);
	assert_int_equal(symbolizer_resolve(sym, tiny, 0x11a4, &r), 1);
	assert_int_equal(r.nr_frames, 3);
	assert_string_equal(r.frames[0].function, "inner");
	assert_null(r.frames[0].file);
	assert_int_equal(r.frames[0].line, 0);
	assert_non_null(r.frames[0].decl_file);
	assert_string_equal(r.frames[0].decl_file, "./prog.c");
	assert_int_equal(r.frames[0].decl_line, 24);
	check_frame(&r.frames[1], "middle", 34, 32);
	check_frame(&r.frames[2], "outer", 40, 38);
	check_sym(sym);
	assert_int_equal(symbolizer_resolve(sym, tiny, 0x11fb, &r), 1);
	assert_int_equal(r.nr_frames, 1);
	assert_string_equal(r.frames[0].function, "driver");
	assert_null(r.frames[0].file);
	assert_int_equal(r.frames[0].line, 0);
	assert_string_equal(r.frames[0].decl_file, "./prog.c");
	assert_int_equal(r.frames[0].decl_line, 44);
	assert_int_equal(symbolizer_resolve(sym, tiny, 0x11d2, &r), 0);
	assert_int_equal(symbolizer_resolve(sym, tiny, 0x1148, &r), 1);
	assert_string_equal(r.frames[0].function, "__do_global_dtors_aux");
	assert_null(r.frames[0].file);
	assert_null(r.frames[0].decl_file);
	check_sym(sym);
	symbolizer_free(sym);
	free(tiny);
}

/*
 * Closing a module: what was resolved stays resolved, from the cache; a
 * new address opens the module again. A copy of tiny is removed after the
 * second close: a new address then finds nothing, which shows that the
 * close let the file go, while the cached answers still stand.
 */
static void
test_prebuilt_close_module(void **state)
{
	char *tiny = tiny_path();
	struct symbolizer *sym = symbolizer_new();
	struct strbuf bytes = STRBUF_INIT, sb = STRBUF_INIT;
	struct sym_result r1, r2, r;
	struct sym_stats st;
	FILE *f = fopen(tiny, "rb");
	char buf[4096], *copy;
	size_t n;

	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&bytes, buf, n);
	fclose(f);
	copy = xstrdup(tmpdir_put(state, "tiny", bytes.buf, bytes.len));

	/* Never looked up, then looked up and closed twice: nothing to do. */
	symbolizer_close_module(sym, copy);
	check_sym(sym);
	assert_int_equal(symbolizer_resolve(sym, copy, 0x11a4, &r1), 1);
	assert_int_equal(r1.nr_frames, 3);
	symbolizer_close_module(sym, copy);
	check_sym(sym);
	symbolizer_close_module(sym, copy);
	check_sym(sym);

	/* The same address: the same answer, from the cache. */
	assert_int_equal(symbolizer_resolve(sym, copy, 0x11a4, &r2), 1);
	assert_ptr_equal(r2.frames, r1.frames);
	assert_int_equal(r2.nr_frames, 3);
	check_frame(&r1.frames[0], "inner", 27, 24);
	check_frame(&r1.frames[2], "outer", 40, 38);
	/* A new one: opened again. */
	assert_int_equal(symbolizer_resolve(sym, copy, 0x11fb, &r), 1);
	check_frame(&r.frames[0], "driver", 49, 44);
	assert_int_equal(symbolizer_name_at(sym, copy, 0x11a4, "outer"), 1);
	check_sym(sym);

	symbolizer_close_module(sym, copy);
	check_sym(sym);
	assert_int_equal(remove(copy), 0);
	assert_int_equal(symbolizer_resolve(sym, copy, 0x11a4, &r), 1);
	assert_ptr_equal(r.frames, r1.frames);
	assert_int_equal(symbolizer_resolve(sym, copy, 0x11fb, &r), 1);
	assert_string_equal(r.frames[0].function, "driver");
	assert_int_equal(symbolizer_resolve(sym, copy, 0x11d1, &r), 0);
	assert_int_equal(symbolizer_name_at(sym, copy, 0x11a4, "outer"), -1);
	check_sym(sym);
	symbolizer_stats(sym, &st);
	assert_int_equal(st.lookups, 6);
	assert_int_equal(st.cache_hits, 3);
	assert_int_equal(st.modules_opened, 1);
	assert_int_equal(st.modules_unreadable, 0);
	assert_int_equal(st.unresolved, 1);
	assert_int_equal(symbolizer_summary(sym, &sb), 1);
	assert_string_equal(sb.buf, "symbols: 1 address not resolved");

	/* Other modules are not touched. */
	assert_int_equal(symbolizer_resolve(sym, tiny, 0x11a4, &r), 1);
	symbolizer_close_module(sym, copy);
	assert_int_equal(symbolizer_resolve(sym, tiny, 0x11d1, &r), 1);
	check_sym(sym);
	strbuf_release(&sb);
	strbuf_release(&bytes);
	symbolizer_free(sym);
	free(copy);
	free(tiny);
}

/*
 * tiny's DWARF in a separate file that its .gnu_debuglink names, where
 * libdwfl's search looks (beside it, in .debug/): found, with no
 * debuginfod server set, which is when the symbolizer spares modules
 * without one that search; and without the file, the ELF symbols alone.
 */
static void
test_prebuilt_separate_debug(void **state)
{
	static const char *const places[] = { "bin/tiny.dbg", "bin/.debug/tiny.dbg" };
	char *tiny = tiny_path(), *prog, *debug;
	char *urls = getenv("DEBUGINFOD_URLS") ? xstrdup(getenv("DEBUGINFOD_URLS")) : NULL;
	struct strbuf cmd = STRBUF_INIT;
	struct symbolizer *sym;
	struct sym_result r;

	prog = xstrdup(tmpdir_path(state, "bin/tiny"));
	debug = xstrdup(tmpdir_path(state, "tiny.dbg"));
	strbuf_addf(&cmd,
		    "mkdir -p '%s/bin/.debug' && objcopy --only-keep-debug '%s' '%s' && "
		    "objcopy --strip-debug --add-gnu-debuglink='%s' '%s' '%s'",
		    ((struct tmpdir *)*state)->dir, tiny, debug, debug, tiny, prog);
	if (system(cmd.buf) != 0)
		fail_msg("cannot split tiny's debug info: %s", cmd.buf);
	unsetenv("DEBUGINFOD_URLS");
	for (size_t i = 0; i < ARRAY_SIZE(places); i++) {
		assert_int_equal(rename(debug, tmpdir_path(state, places[i])), 0);
		sym = symbolizer_new();
		assert_int_equal(symbolizer_resolve(sym, prog, 0x11a4, &r), 1);
		assert_int_equal(r.nr_frames, 3);
		check_frame(&r.frames[0], "inner", 27, 24);
		check_frame(&r.frames[2], "outer", 40, 38);
		check_sym(sym);
		symbolizer_free(sym);
		assert_int_equal(rename(tmpdir_path(state, places[i]), debug), 0);
	}
	sym = symbolizer_new();
	assert_int_equal(symbolizer_resolve(sym, prog, 0x11a4, &r), 1);
	assert_int_equal(r.nr_frames, 1);
	assert_string_equal(r.frames[0].function, "outer");
	assert_null(r.frames[0].decl_file);
	check_sym(sym);
	symbolizer_free(sym);
	if (urls)
		setenv("DEBUGINFOD_URLS", urls, 1);
	free(urls);
	strbuf_release(&cmd);
	free(prog);
	free(debug);
	free(tiny);
}

static void
test_prebuilt_changed_module(void **state)
{
	char *tiny = tiny_path();
	struct symbolizer *sym = symbolizer_new();
	struct strbuf sb = STRBUF_INIT;
	struct sym_result r;
	struct sym_stats st;

	(void)state;
	/* perf's name agrees with the ELF symbols: the file is the one recorded. */
	assert_int_equal(symbolizer_name_at(sym, tiny, 0x11a4, "outer"), 1);
	/* Another function's name there: it was rebuilt since. */
	assert_int_equal(symbolizer_name_at(sym, tiny, 0x11a4, "driver"), 0);
	/* A name it has no symbol for: cannot tell. */
	assert_int_equal(symbolizer_name_at(sym, tiny, 0x11a4, "no_such_function"), -1);
	assert_int_equal(symbolizer_name_at(sym, "/nonexistent/tiny", 0x11a4, "outer"), -1);

	symbolizer_reject_module(sym, tiny);
	assert_int_equal(symbolizer_resolve(sym, tiny, 0x11a4, &r), 0);
	assert_int_equal(r.nr_frames, 0);
	symbolizer_stats(sym, &st);
	assert_int_equal(st.modules_changed, 1);
	assert_int_equal(symbolizer_summary(sym, &sb), 1);
	assert_non_null(strstr(sb.buf, "1 module changed since the recording ("));
	assert_non_null(strstr(sb.buf, "tests/data/symbols/tiny)"));
	strbuf_release(&sb);
	symbolizer_free(sym);
	free(tiny);
}

/*
 * Resolve addr in module, where only an ELF symbol can answer: expect
 * function (one frame, no line, file or NULL), or nothing when function
 * is NULL.
 */
static void
check_elf_answer(struct symbolizer *sym, const char *module, uint64_t addr,
		 const char *function, const char *file)
{
	struct sym_result r;
	int got = symbolizer_resolve(sym, module, addr, &r);

	if (!function) {
		if (got)
			fail_msg("0x%llx: %s, expected nothing",
				 (unsigned long long)addr, r.frames[0].function);
		assert_int_equal(r.nr_frames, 0);
		return;
	}
	if (!got)
		fail_msg("0x%llx: nothing, expected %s", (unsigned long long)addr,
			 function);
	assert_int_equal(r.nr_frames, 1);
	assert_string_equal(r.frames[0].function, function);
	if (file) {
		assert_non_null(r.frames[0].file);
		assert_string_equal(r.frames[0].file, file);
	} else {
		assert_null(r.frames[0].file);
	}
	assert_int_equal(r.frames[0].line, 0);
	assert_null(r.frames[0].decl_file);
}

/*
 * The ELF symbol index on tiny (.symtab), where DWARF has nothing:
 * _start is [0x10a0, 0x10c2) and padding follows it up to 0x10d0;
 * crtstuff.c's local functions have no size, so each reaches to the next
 * symbol (deregister_tm_clones to 0x1100, frame_dummy to outer() at
 * 0x1190); _init, of no size either, stops at the end of .init (0x1017),
 * not at the next symbol.
 */
static void
test_prebuilt_elf_index(void **state)
{
	char *tiny = tiny_path();
	struct symbolizer *sym = symbolizer_new();
	struct sym_stats st;

	(void)state;
	/* First byte, middle, last byte, one past the end (padding). */
	check_elf_answer(sym, tiny, 0x10a0, "_start", NULL);
	check_elf_answer(sym, tiny, 0x10b0, "_start", NULL);
	check_elf_answer(sym, tiny, 0x10c1, "_start", NULL);
	check_elf_answer(sym, tiny, 0x10c2, NULL, NULL);
	/* Zero-size locals, with their STT_FILE's name. */
	check_elf_answer(sym, tiny, 0x10d0, "deregister_tm_clones", "crtstuff.c");
	check_elf_answer(sym, tiny, 0x10ff, "deregister_tm_clones", "crtstuff.c");
	check_elf_answer(sym, tiny, 0x1100, "register_tm_clones", "crtstuff.c");
	check_elf_answer(sym, tiny, 0x118f, "frame_dummy", "crtstuff.c");
	/* A zero-size symbol stops at its section's end. */
	check_elf_answer(sym, tiny, 0x1016, "_init", NULL);
	check_elf_answer(sym, tiny, 0x1017, NULL, NULL);
	symbolizer_stats(sym, &st);
	assert_int_equal(st.unresolved, 2);

	/* name_at's three answers, on the same index. */
	assert_int_equal(symbolizer_name_at(sym, tiny, 0x10b0, "_start"), 1);
	assert_int_equal(symbolizer_name_at(sym, tiny, 0x10c1, "_start"), 1);
	assert_int_equal(symbolizer_name_at(sym, tiny, 0x10c2, "_start"), 0);
	assert_int_equal(symbolizer_name_at(sym, tiny, 0x10b0, "main"), 0);
	assert_int_equal(symbolizer_name_at(sym, tiny, 0x10b0, "no_such_function"), -1);
	/* A symbol of no size covers up to the next one, not just its first byte. */
	assert_int_equal(symbolizer_name_at(sym, tiny, 0x10ff, "deregister_tm_clones"), 1);
	/* Outside every segment: it cannot be the file perf saw. */
	assert_int_equal(symbolizer_name_at(sym, tiny, UINT64_C(1) << 40, "_start"), 0);
	check_sym(sym);
	symbolizer_free(sym);
	free(tiny);
}

/*
 * The index on stripped (tests/data/symbols/aliases.c, see README): no
 * DWARF and no .symtab, the names come from .dynsym alone. There, outer
 * and its weak alias outer_weak (first in the table) are [0x11a0, 0x11e2);
 * weak_fn and its GLOBAL alias strong_name [0x1230, 0x123f); nosize_fn
 * has no size at 0x1190, before outer; tail_fn, of no size, is alone in
 * .text_tail [0x123f, 0x1240), which .fini follows. crtstuff.c's
 * functions, at 0x10d0 to 0x118f, are not exported.
 */
static void
test_prebuilt_dynsym_only(void **state)
{
	char *path = data_path("stripped");
	struct symbolizer *sym = symbolizer_new();
	struct sym_stats st;

	(void)state;
	check_elf_answer(sym, path, 0x10a0, "_start", NULL);
	check_elf_answer(sym, path, 0x10b0, "_start", NULL);
	check_elf_answer(sym, path, 0x10c1, "_start", NULL);
	check_elf_answer(sym, path, 0x10c2, NULL, NULL);
	/*
	 * Past _start's end, in code no exported symbol covers: nobody's, as
	 * perf leaves it (addr2line says _start).
	 */
	check_elf_answer(sym, path, 0x10d5, NULL, NULL);
	check_elf_answer(sym, path, 0x1180, NULL, NULL);
	/* Aliases: GLOBAL before WEAK, whatever the table's order. */
	check_elf_answer(sym, path, 0x11a0, "outer", NULL);
	check_elf_answer(sym, path, 0x11c0, "outer", NULL);
	check_elf_answer(sym, path, 0x11e1, "outer", NULL);
	check_elf_answer(sym, path, 0x11e2, NULL, NULL);
	check_elf_answer(sym, path, 0x1230, "strong_name", NULL);
	check_elf_answer(sym, path, 0x123e, "strong_name", NULL);
	/* No size: up to the next symbol, or to its section's end. */
	check_elf_answer(sym, path, 0x1190, "nosize_fn", NULL);
	check_elf_answer(sym, path, 0x119f, "nosize_fn", NULL);
	check_elf_answer(sym, path, 0x123f, "tail_fn", NULL);
	/* Beyond every symbol. */
	check_elf_answer(sym, path, 0x1240, NULL, NULL);
	check_elf_answer(sym, path, 0x1245, NULL, NULL);
	symbolizer_stats(sym, &st);
	assert_int_equal(st.unresolved, 6);

	/* Any alias is perf's name for the place. */
	assert_int_equal(symbolizer_name_at(sym, path, 0x11c0, "outer"), 1);
	assert_int_equal(symbolizer_name_at(sym, path, 0x11c0, "outer_weak"), 1);
	assert_int_equal(symbolizer_name_at(sym, path, 0x1238, "weak_fn"), 1);
	assert_int_equal(symbolizer_name_at(sym, path, 0x11c0, "driver"), 0);
	assert_int_equal(symbolizer_name_at(sym, path, 0x1195, "nosize_fn"), 1);
	assert_int_equal(symbolizer_name_at(sym, path, 0x1245, "tail_fn"), 0);
	/* Only .symtab had it. */
	assert_int_equal(symbolizer_name_at(sym, path, 0x1185, "frame_dummy"), -1);
	check_sym(sym);
	symbolizer_free(sym);
	free(path);
}

/*
 * symbolizer_defer_to_perf(): only a module with no DWARF anywhere and
 * .dynsym for its only table has nothing to tell beyond perf's names.
 * Then it resolves nothing more, not even what its .dynsym names. A
 * .symtab, DWARF (in the file or a debug file it links to) or a
 * MiniDebugInfo section keep it asked.
 */
static void
test_prebuilt_defer_to_perf(void **state)
{
	static const char *const kept[] = { "bin/symtab", "bin/linked", "bin/minidebug", "tiny" };
	char *tiny = tiny_path(), *stripped = data_path("stripped");
	const char *dir = ((struct tmpdir *)*state)->dir;
	struct strbuf cmd = STRBUF_INIT;
	struct symbolizer *sym;
	struct sym_result r;
	struct sym_stats st;

	strbuf_addf(&cmd,
		    "cd '%s' && mkdir -p bin && cp '%s' tiny && strip --strip-debug -o bin/symtab tiny && "
		    "objcopy --only-keep-debug tiny bin/tiny.dbg && "
		    "objcopy --strip-all --add-gnu-debuglink=bin/tiny.dbg tiny bin/linked && "
		    "objcopy --add-section .gnu_debugdata=tiny '%s' bin/minidebug && "
		    "cp bin/tiny.dbg bin/gone.dbg && "
		    "objcopy --strip-all --add-gnu-debuglink=bin/gone.dbg tiny bin/gone && "
		    "rm bin/gone.dbg",
		    dir, tiny, stripped);
	if (system(cmd.buf) != 0)
		fail_msg("cannot make tiny's copies: %s", cmd.buf);
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++) {
		char *path = xstrdup(tmpdir_path(state, kept[i]));

		sym = symbolizer_new();
		if (symbolizer_defer_to_perf(sym, path))
			fail_msg("%s: deferred to perf", kept[i]);
		if (!symbols_beyond_dynsym(path))
			fail_msg("%s: nothing beyond .dynsym, says symbols_beyond_dynsym()", kept[i]);
		/* Still asked: outer() by DWARF or by a table. */
		assert_int_equal(symbolizer_resolve(sym, path, 0x11a4, &r), 1);
		assert_string_equal(r.frames[r.nr_frames - 1].function, "outer");
		check_sym(sym);
		symbolizer_free(sym);
		free(path);
	}

	/*
	 * The parser's cheap check agrees: only stripped, and a stripped copy
	 * whose debug link names a file that is gone, have nothing more. When
	 * it cannot tell (no file, not ELF, debuginfod asked), it says more.
	 */
	{
		char *gone = xstrdup(tmpdir_path(state, "bin/gone")), *readme = data_path("README");
		const char *env = getenv("DEBUGINFOD_URLS");
		char *urls = env ? xstrdup(env) : NULL;

		unsetenv("DEBUGINFOD_URLS");
		assert_false(symbols_beyond_dynsym(stripped));
		assert_false(symbols_beyond_dynsym(gone));
		sym = symbolizer_new();
		assert_true(symbolizer_defer_to_perf(sym, gone));
		symbolizer_free(sym);
		assert_true(symbols_beyond_dynsym("/nonexistent/module"));
		assert_true(symbols_beyond_dynsym(readme));
		setenv("DEBUGINFOD_URLS", "http://debuginfod.invalid", 1);
		assert_true(symbols_beyond_dynsym(stripped));
		if (urls)
			setenv("DEBUGINFOD_URLS", urls, 1);
		else
			unsetenv("DEBUGINFOD_URLS");
		free(urls);
		free(gone);
		free(readme);
	}

	sym = symbolizer_new();
	assert_false(symbolizer_defer_to_perf(sym, "/nonexistent/module"));
	/* .dynsym alone: it names outer, but perf read the same. */
	check_elf_answer(sym, stripped, 0x11c0, "outer", NULL);
	assert_true(symbolizer_defer_to_perf(sym, stripped));
	assert_true(symbolizer_defer_to_perf(sym, stripped));
	check_elf_answer(sym, stripped, 0x11a0, NULL, NULL);
	check_elf_answer(sym, stripped, 0x1230, NULL, NULL);
	/* Asked before: the cache keeps its answer. */
	check_elf_answer(sym, stripped, 0x11c0, "outer", NULL);
	symbolizer_stats(sym, &st);
	assert_int_equal(st.unresolved, 2);
	check_sym(sym);
	symbolizer_free(sym);
	strbuf_release(&cmd);
	free(stripped);
	free(tiny);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline_chain_pie),
		cmocka_unit_test(test_inline_chain_nopie),
		cmocka_unit_test(test_inline_chain_dwarf4),
		cmocka_unit_test(test_no_lines),
		cmocka_unit_test(test_no_debuginfo),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_summary_many),
		cmocka_unit_test(test_cost_hint),
		cmocka_unit_test(test_outside_function),
		cmocka_unit_test(test_inline_chain_no_aranges),
	};

	const struct CMUnitTest prebuilt[] = {
		cmocka_unit_test(test_prebuilt_inline_chain),
		cmocka_unit_test(test_prebuilt_changed_module),
		cmocka_unit_test(test_prebuilt_no_lines),
		cmocka_unit_test_setup_teardown(test_prebuilt_close_module, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test(test_prebuilt_elf_index),
		cmocka_unit_test_setup_teardown(test_prebuilt_separate_debug, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test(test_prebuilt_dynsym_only),
		cmocka_unit_test_setup_teardown(test_prebuilt_defer_to_perf, tmpdir_setup,
						tmpdir_teardown),
	};
	int failed = cmocka_run_group_tests(prebuilt, NULL, NULL);

	/* The rest compiles its program: only where a compiler is. */
	if (system("cc --version >/dev/null 2>&1") != 0)
		return failed ? failed : 77;
	return failed + cmocka_run_group_tests(tests, group_setup, group_teardown);
}
