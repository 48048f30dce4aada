#include "config.h"

#include "tflame/elfsym.h"

#include <elf.h>
#include <stdlib.h>

#include "test_util.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * The ELF symbol index on symbol tables made up here: aliases, nested and
 * overlapping extents, symbols of no size, and a random table checked
 * against a plain reading of the rules in elfsym.h. The symbolizer's tests
 * (test_symbols.c) run it on real files.
 */

static void
check_index(const struct elfsym_index *ix)
{
	struct tf_error err = TF_ERROR_INIT;

	if (elfsym_index_check(ix, &err))
		fail_msg("elfsym_index_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

static void
add(struct elfsym_index *ix, const char *name, uint64_t start, uint64_t size,
    uint64_t limit, unsigned char bind)
{
	struct elfsym_def def = {
		.name = name, .start = start, .size = size, .limit = limit,
		.file = bind == STB_LOCAL ? "file.c" : NULL, .bind = bind,
	};

	elfsym_index_add(ix, &def);
	check_index(ix);
}

/* The name addr resolves to, or NULL. */
static const char *
at(const struct elfsym_index *ix, uint64_t addr)
{
	const struct elfsym *s = elfsym_index_lookup(ix, addr);

	return s ? elfsym_name(ix, s) : NULL;
}

static void
assert_at(const struct elfsym_index *ix, uint64_t addr, const char *want)
{
	const char *got = at(ix, addr);

	if (!want && got)
		fail_msg("0x%llx: %s, expected nothing", (unsigned long long)addr, got);
	if (want && (!got || strcmp(got, want)))
		fail_msg("0x%llx: %s, expected %s", (unsigned long long)addr,
			 got ? got : "nothing", want);
}

static void
test_empty(void **state)
{
	struct elfsym_index ix;

	(void)state;
	elfsym_index_init(&ix);
	check_index(&ix);
	elfsym_index_finish(&ix);
	check_index(&ix);
	assert_at(&ix, 0, NULL);
	assert_at(&ix, UINT64_MAX, NULL);
	assert_int_equal(elfsym_index_name_covers(&ix, "main", 0), -1);
	elfsym_index_release(&ix);
}

static void
test_aliases(void **state)
{
	struct elfsym_index ix;
	const struct elfsym *s;

	(void)state;
	elfsym_index_init(&ix);
	/* One place, four names: GLOBAL wins, then the first in the table. */
	add(&ix, "local_a", 0x100, 0x40, 0, STB_LOCAL);
	add(&ix, "weak_a", 0x100, 0x40, 0, STB_WEAK);
	add(&ix, "global_a", 0x100, 0x40, 0, STB_GLOBAL);
	add(&ix, "global_b", 0x100, 0x40, 0, STB_GLOBAL);
	add(&ix, "label_a", 0x100, 0, 0x1000, STB_GLOBAL);
	/* Two sizes at one start: the smaller, then the larger alone. */
	add(&ix, "memmove", 0x200, 0x100, 0, STB_GLOBAL);
	add(&ix, "memcpy", 0x200, 0x80, 0, STB_GLOBAL);
	elfsym_index_finish(&ix);
	check_index(&ix);
	assert_at(&ix, 0xff, NULL);
	assert_at(&ix, 0x100, "global_a");
	assert_at(&ix, 0x13f, "global_a");
	assert_at(&ix, 0x140, NULL);
	s = elfsym_index_lookup(&ix, 0x120);
	assert_non_null(s);
	assert_int_equal(s->bind, STB_GLOBAL);
	assert_null(elfsym_file(&ix, s));
	assert_at(&ix, 0x200, "memcpy");
	assert_at(&ix, 0x27f, "memcpy");
	assert_at(&ix, 0x280, "memmove");
	assert_at(&ix, 0x2ff, "memmove");
	assert_at(&ix, 0x300, NULL);
	/* Any alias covering the address counts; one that does not, not. */
	assert_int_equal(elfsym_index_name_covers(&ix, "local_a", 0x120), 1);
	assert_int_equal(elfsym_index_name_covers(&ix, "weak_a", 0x13f), 1);
	assert_int_equal(elfsym_index_name_covers(&ix, "weak_a", 0x140), 0);
	assert_int_equal(elfsym_index_name_covers(&ix, "memcpy", 0x290), 0);
	assert_int_equal(elfsym_index_name_covers(&ix, "memmove", 0x290), 1);
	assert_int_equal(elfsym_index_name_covers(&ix, "strlen", 0x290), -1);
	/* label_a, of no size, is an alias: the group's extent is its own. */
	assert_int_equal(elfsym_index_name_covers(&ix, "label_a", 0x100), 1);
	check_index(&ix);
	elfsym_index_release(&ix);
}

/*
 * The symbol perf names an address by, among the aliases at its start
 * (choose_best_symbol() in perf's symbol.c).
 */
static void
test_perf_symbol(void **state)
{
	struct elfsym_index ix;
	const struct elfsym *s;

	(void)state;
	elfsym_index_init(&ix);
	/* glibc's __libc_start_main: a local and two versioned globals. */
	add(&ix, "__libc_start_main_impl", 0x1000, 0x100, 0x1000, STB_LOCAL);
	add(&ix, "__libc_start_main@GLIBC_2.2.5", 0x1000, 0x100, 0x1000, STB_GLOBAL);
	add(&ix, "__libc_start_main@@GLIBC_2.34", 0x1000, 0x100, 0x1000, STB_GLOBAL);
	/* glibc's hidden __GI_ aliases are local once linked */
	add(&ix, "__GI___snprintf", 0x2000, 0x40, 0x2000, STB_LOCAL);
	add(&ix, "__snprintf", 0x2000, 0x40, 0x2000, STB_GLOBAL);
	add(&ix, "snprintf", 0x2000, 0x40, 0x2000, STB_WEAK);
	/* of two globals, the one with fewer leading underscores */
	add(&ix, "_IO_default_xsputn", 0x2800, 0x40, 0x2800, STB_GLOBAL);
	add(&ix, "__IO_default_xsputn_x", 0x2800, 0x40, 0x2800, STB_GLOBAL);
	/* sized before zero-size, whatever the binding */
	add(&ix, "marker", 0x3000, 0, 0x3100, STB_GLOBAL);
	add(&ix, "msort_with_tmp.part.0", 0x3000, 0x80, 0x3000, STB_LOCAL);
	elfsym_index_finish(&ix);
	check_index(&ix);

	s = elfsym_index_perf_symbol(&ix, 0x1010);
	assert_non_null(s);
	/* Equal but for the name's length: the table's first. */
	assert_string_equal(elfsym_name(&ix, s), "__libc_start_main@GLIBC_2.2.5");
	s = elfsym_index_perf_symbol(&ix, 0x2004);
	assert_non_null(s);
	assert_string_equal(elfsym_name(&ix, s), "__snprintf");
	s = elfsym_index_perf_symbol(&ix, 0x2800);
	assert_non_null(s);
	assert_string_equal(elfsym_name(&ix, s), "_IO_default_xsputn");
	s = elfsym_index_perf_symbol(&ix, 0x3040);
	assert_non_null(s);
	assert_string_equal(elfsym_name(&ix, s), "msort_with_tmp.part.0");
	assert_null(elfsym_index_perf_symbol(&ix, 0x4000));
	check_index(&ix);
	elfsym_index_release(&ix);
}

static void
test_nested(void **state)
{
	struct elfsym_index ix;
	const struct elfsym *s;

	(void)state;
	elfsym_index_init(&ix);
	/* A global function holding a local one and a global one. */
	add(&ix, "outer", 0x1000, 0x100, 0, STB_GLOBAL);
	add(&ix, "inner_local", 0x1010, 0x10, 0, STB_LOCAL);
	add(&ix, "inner_global", 0x1040, 0x10, 0, STB_GLOBAL);
	/* Locals in a local: the latest start wins. */
	add(&ix, "a", 0x2000, 0x100, 0, STB_LOCAL);
	add(&ix, "b", 0x2020, 0x10, 0, STB_LOCAL);
	/* Overlapping, neither inside the other. */
	add(&ix, "c", 0x3000, 0x30, 0, STB_GLOBAL);
	add(&ix, "d", 0x3020, 0x30, 0, STB_GLOBAL);
	elfsym_index_finish(&ix);
	check_index(&ix);
	assert_at(&ix, 0x1015, "outer");
	assert_at(&ix, 0x1040, "inner_global");
	assert_at(&ix, 0x104f, "inner_global");
	assert_at(&ix, 0x1050, "outer");
	assert_at(&ix, 0x10ff, "outer");
	assert_at(&ix, 0x1100, NULL);
	assert_at(&ix, 0x201f, "a");
	assert_at(&ix, 0x2020, "b");
	assert_at(&ix, 0x2030, "a");
	s = elfsym_index_lookup(&ix, 0x2025);
	assert_non_null(s);
	assert_string_equal(elfsym_file(&ix, s), "file.c");
	assert_at(&ix, 0x301f, "c");
	assert_at(&ix, 0x3020, "d");
	assert_at(&ix, 0x304f, "d");
	assert_at(&ix, 0x3050, NULL);
	assert_int_equal(elfsym_index_name_covers(&ix, "inner_local", 0x1015), 1);
	assert_int_equal(elfsym_index_name_covers(&ix, "outer", 0x1045), 1);
	elfsym_index_release(&ix);
}

static void
test_zero_size(void **state)
{
	struct elfsym_index ix;

	(void)state;
	elfsym_index_init(&ix);
	/* To the next symbol... */
	add(&ix, "asm_a", 0x100, 0, 0x1000, STB_GLOBAL);
	add(&ix, "f", 0x140, 0x10, 0, STB_GLOBAL);
	/* ...or to its limit, whichever comes first. */
	add(&ix, "asm_b", 0x200, 0, 0x220, STB_LOCAL);
	add(&ix, "g", 0x300, 0x10, 0, STB_GLOBAL);
	/* A label inside a sized function: never the answer. */
	add(&ix, "h", 0x400, 0x40, 0, STB_GLOBAL);
	add(&ix, "h_label", 0x420, 0, 0x1000, STB_LOCAL);
	add(&ix, "k", 0x480, 0x10, 0, STB_GLOBAL);
	/* A marker at the very end of its section covers nothing. */
	add(&ix, "_etext", 0x490, 0, 0x490, STB_GLOBAL);
	/* The last symbol, with no size: up to its limit. */
	add(&ix, "last", 0x800, 0, 0x900, STB_WEAK);
	elfsym_index_finish(&ix);
	check_index(&ix);
	assert_at(&ix, 0x100, "asm_a");
	assert_at(&ix, 0x13f, "asm_a");
	assert_at(&ix, 0x14f, "f");
	assert_at(&ix, 0x150, NULL);
	assert_at(&ix, 0x21f, "asm_b");
	assert_at(&ix, 0x220, NULL);
	assert_at(&ix, 0x2ff, NULL);
	assert_at(&ix, 0x420, "h");
	assert_at(&ix, 0x43f, "h");
	assert_at(&ix, 0x440, NULL);
	assert_at(&ix, 0x47f, NULL);
	assert_at(&ix, 0x490, NULL);
	assert_at(&ix, 0x8ff, "last");
	assert_at(&ix, 0x900, NULL);
	assert_int_equal(elfsym_index_name_covers(&ix, "asm_a", 0x13f), 1);
	assert_int_equal(elfsym_index_name_covers(&ix, "asm_a", 0x140), 0);
	assert_int_equal(elfsym_index_name_covers(&ix, "h_label", 0x450), 1);
	assert_int_equal(elfsym_index_name_covers(&ix, "_etext", 0x490), 0);
	elfsym_index_release(&ix);
}

static void
test_address_space_end(void **state)
{
	struct elfsym_index ix;

	(void)state;
	elfsym_index_init(&ix);
	add(&ix, "top", UINT64_MAX - 0x10, 0x100, 0, STB_GLOBAL);
	add(&ix, "zero", 0, 0x10, 0, STB_GLOBAL);
	elfsym_index_finish(&ix);
	check_index(&ix);
	assert_at(&ix, 0, "zero");
	assert_at(&ix, UINT64_MAX - 0x10, "top");
	assert_at(&ix, UINT64_MAX - 1, "top");
	assert_at(&ix, UINT64_MAX, NULL);
	elfsym_index_release(&ix);
}

/*
 * A random table against the rules of elfsym.h read literally: for each
 * address, every symbol that covers it, the best by class, start and
 * preference. Quadratic, and independent of the sweep.
 */
struct ref_sym {
	uint64_t start, size, limit, end;
	unsigned char bind;
	bool label;
};

static int
ref_rank(unsigned char bind)
{
	return bind == STB_GLOBAL ? 3 : bind == STB_WEAK ? 2 : bind == STB_LOCAL ? 1 : 0;
}

static int
ref_class(const struct ref_sym *r)
{
	return !r->size ? 2 : r->bind == STB_LOCAL;
}

/* Is symbol a (table index) better than b at an address both cover? */
static bool
ref_better(const struct ref_sym *t, size_t a, size_t b)
{
	const struct ref_sym *x = &t[a], *y = &t[b];

	if (ref_class(x) != ref_class(y))
		return ref_class(x) < ref_class(y);
	if (x->start != y->start)
		return x->start > y->start;
	if (ref_rank(x->bind) != ref_rank(y->bind))
		return ref_rank(x->bind) > ref_rank(y->bind);
	if (x->size != y->size)
		return x->size < y->size;
	return a < b;
}

/*
 * Rounds of random tables, with every address, size and limit multiplied
 * by scale: 1 keeps them within two bytes; a scale with bits in every byte
 * sends the radix sort through all eight of its passes, and maps the table
 * onto one with the same answers at the scaled addresses. Odd rounds give
 * several symbols one name.
 */
static void
random_rounds(uint64_t scale, unsigned seed)
{
	const unsigned char binds[] = { STB_LOCAL, STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE };
	const uint64_t span = 64 * 4 + 100;

	for (int round = 0; round < 200; round++) {
		size_t n = 1 + (size_t)(rand_r(&seed) % 80);
		size_t nr_names = round % 2 ? 1 + n / 4 : n;
		struct ref_sym *t = xcalloc(n, sizeof(*t));
		size_t *name_of = xcalloc(n, sizeof(*name_of));
		struct elfsym_index ix;
		/* The index borrows its names: they live as long as it. */
		char (*names)[24] = xcalloc(nr_names + 1, sizeof(*names));

		for (size_t j = 0; j <= nr_names; j++)
			snprintf(names[j], sizeof(names[j]), "s%zu", j);
		elfsym_index_init(&ix);
		for (size_t i = 0; i < n; i++) {
			t[i].start = (uint64_t)(rand_r(&seed) % 64) * 4;
			t[i].size = rand_r(&seed) % 3 ? 0 : (uint64_t)(1 + rand_r(&seed) % 40);
			t[i].limit = t[i].start + (uint64_t)(rand_r(&seed) % 48);
			t[i].bind = binds[rand_r(&seed) % 4];
			name_of[i] = round % 2 ? (size_t)rand_r(&seed) % nr_names : i;
			add(&ix, names[name_of[i]], t[i].start * scale, t[i].size * scale,
			    t[i].limit * scale, t[i].bind);
		}
		elfsym_index_finish(&ix);
		check_index(&ix);
		/* Extents and labels, by the definitions. */
		for (size_t i = 0; i < n; i++) {
			if (t[i].size) {
				t[i].end = t[i].start + t[i].size;
				continue;
			}
			t[i].end = t[i].limit;
			for (size_t j = 0; j < n; j++) {
				if (t[j].start > t[i].start && t[j].start < t[i].end)
					t[i].end = t[j].start;
				if (t[j].size && t[j].start <= t[i].start &&
				    t[i].start < t[j].start + t[j].size)
					t[i].label = true;
			}
		}
		for (uint32_t k = 0; k < ix.nr_syms; k++) {
			const struct elfsym *s = &ix.syms[k];

			assert_true(s->order < n);
			assert_int_equal(s->label, t[s->order].label);
			assert_int_equal(s->end, t[s->order].end * scale);
			assert_ptr_equal(s->name, names[name_of[s->order]]);
		}
		for (uint64_t a = 0; a < span; a++) {
			size_t best = n;
			const struct elfsym *s = elfsym_index_lookup(&ix, a * scale);

			for (size_t i = 0; i < n; i++)
				if (!t[i].label && a >= t[i].start && a < t[i].end &&
				    (best == n || ref_better(t, i, best)))
					best = i;
			if (best == n && s)
				fail_msg("round %d: 0x%llx is %s, expected nothing", round,
					 (unsigned long long)(a * scale), elfsym_name(&ix, s));
			if (best < n && (!s || s->order != best))
				fail_msg("round %d: 0x%llx is %s, expected s%zu", round,
					 (unsigned long long)(a * scale),
					 s ? elfsym_name(&ix, s) : "nothing", best);
			/* names[nr_names] names no symbol. */
			for (size_t j = 0; j <= nr_names; j++) {
				int want = -1;

				for (size_t i = 0; i < n; i++) {
					if (name_of[i] != j)
						continue;
					if (a >= t[i].start && a < t[i].end)
						want = 1;
					else if (want < 0)
						want = 0;
				}
				if (elfsym_index_name_covers(&ix, names[j], a * scale) != want)
					fail_msg("round %d: %s at 0x%llx: expected %d", round,
						 names[j], (unsigned long long)(a * scale), want);
			}
		}
		check_index(&ix);
		elfsym_index_release(&ix);
		free(names);
		free(name_of);
		free(t);
	}
}

static void
test_random(void **state)
{
	(void)state;
	random_rounds(1, 12345);
	random_rounds(UINT64_C(0x0001000100010001), 54321);
}

/*
 * A table read before its names are asked for, then the name table built
 * on the first question the aliases at the address cannot answer.
 */
static void
test_names_lazily(void **state)
{
	struct elfsym_index ix;

	(void)state;
	elfsym_index_init(&ix);
	add(&ix, "f", 0x100, 0x10, 0, STB_GLOBAL);
	add(&ix, "f_alias", 0x100, 0x10, 0, STB_WEAK);
	add(&ix, "g", 0x200, 0x10, 0, STB_GLOBAL);
	add(&ix, "f", 0x300, 0x10, 0, STB_LOCAL);
	elfsym_index_finish(&ix);
	check_index(&ix);
	/* The symbol at the address, or an alias of it: no table needed. */
	assert_int_equal(elfsym_index_name_covers(&ix, "f", 0x105), 1);
	assert_int_equal(elfsym_index_name_covers(&ix, "f_alias", 0x105), 1);
	assert_null(ix.by_name);
	/* Elsewhere, or nowhere: the table answers. */
	assert_int_equal(elfsym_index_name_covers(&ix, "g", 0x105), 0);
	assert_non_null(ix.by_name);
	check_index(&ix);
	assert_int_equal(elfsym_index_name_covers(&ix, "f", 0x305), 1);
	assert_int_equal(elfsym_index_name_covers(&ix, "f", 0x205), 0);
	assert_int_equal(elfsym_index_name_covers(&ix, "h", 0x205), -1);
	assert_int_equal(elfsym_index_name_covers(&ix, "f_alias", 0x305), 0);
	check_index(&ix);
	elfsym_index_release(&ix);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_perf_symbol),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_zero_size),
		cmocka_unit_test(test_address_space_end),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_names_lazily),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
