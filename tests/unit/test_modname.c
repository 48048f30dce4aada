#include "config.h"

#include "test_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tflame/model.h"
#include "tflame/modfile.h"
#include "tflame/modname.h"
#include "tflame/xalloc.h"

/* The names of paths[], in order, after one build. */
static void
expect_names(const char *const *paths, const char *const *want, size_t n)
{
	struct module_names mn = MODULE_NAMES_INIT;

	for (size_t i = n; i-- > 0;)
		module_names_add(&mn, paths[i]);
	/* Twice is once. */
	module_names_add(&mn, paths[0]);
	module_names_add(&mn, "");
	module_names_build(&mn);
	assert_int_equal(mn.nr, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(module_names_get(&mn, paths[i]), want[i]);
	module_names_release(&mn);
}

/* A module is its file name, unless another has that file name too. */
static void
test_names(void **state)
{
	static const char *const paths[] = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/gcc/x86_64-linux-gnu/12/cc1",
		"[kernel.kallsyms]",
		"[vdso]",
		"/tmp/perf-123.map",
		"./relative/dir/tool",
		"json/__init__.py",
		"node:internal/streams/writable",
		"file:///srv/app.js",
	};
	/*
	 * A relative name an importer made short (cProfile's, a script of a
	 * JS profile) shows whole; a "./" path or a URL as its file name.
	 */
	static const char *const want[] = {
		"libc.so.6", "cc1", "[kernel.kallsyms]", "[vdso]", "perf-123.map", "tool",
		"json/__init__.py", "node:internal/streams/writable", "app.js",
	};
	struct module_names mn = MODULE_NAMES_INIT;

	(void)state;
	expect_names(paths, want, 9);
	/* Not in the table, or not built: the file name. */
	module_names_add(&mn, "/a/x.so");
	assert_string_equal(module_names_get(&mn, "/a/x.so"), "x.so");
	module_names_build(&mn);
	assert_string_equal(module_names_get(&mn, "/b/y.so"), "y.so");
	assert_string_equal(module_names_get(&mn, ""), "");
	assert_string_equal(module_file_name("/dir/"), "/dir/");
	module_names_release(&mn);
}

/* Two copies of libc, of cc1: the shortest tails that tell them apart. */
static void
test_same_file_name(void **state)
{
	static const char *const two[] = {
		"/opt/a/libc.so.6", "/opt/b/libc.so.6", "/usr/lib/libm.so.6",
	};
	static const char *const two_want[] = { "a/libc.so.6", "b/libc.so.6", "libm.so.6" };
	/* x/a and y/a share "a/": they need one more; b does not. */
	static const char *const nested[] = {
		"/x/a/libc.so.6", "/y/a/libc.so.6", "/z/b/libc.so.6",
	};
	static const char *const nested_want[] = {
		"x/a/libc.so.6", "y/a/libc.so.6", "b/libc.so.6",
	};
	/* A path that is the tail of another shows whole. */
	static const char *const tails[] = {
		"/a/cc1", "/x/a/cc1", "cc1",
	};
	static const char *const tails_want[] = { "/a/cc1", "x/a/cc1", "cc1" };
	/* A build directory's binary and the installed one. */
	static const char *const builds[] = {
		"/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "/home/me/gcc/build/gcc/cc1",
	};
	static const char *const builds_want[] = { "12/cc1", "gcc/cc1" };

	(void)state;
	expect_names(two, two_want, 3);
	expect_names(nested, nested_want, 3);
	expect_names(tails, tails_want, 3);
	expect_names(builds, builds_want, 2);
}

/* The model names its set's modules, and again once the set has more. */
static void
test_model_names(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, STR_EMPTY, UNIT_SAMPLES);
	struct frame f = { 0 };
	frame_id a, b;
	struct model m;

	(void)state;
	f.name = ps_str(ps, "_int_malloc", 11);
	f.module = ps_str(ps, "/a/libc.so.6", 12);
	a = profile_set_frame(ps, &f);
	profile_add_sample(p, profile_set_stack(ps, STACK_ROOT, a), 1, 0, false,
			   profile_set_thread(ps, 1, 1, STR_EMPTY), NULL);
	model_init(&m, ps);
	assert_string_equal(model_module_name(&m, f.module), "libc.so.6");
	f.module = ps_str(ps, "/b/libc.so.6", 12);
	b = profile_set_frame(ps, &f);
	profile_add_sample(p, profile_set_stack(ps, STACK_ROOT, b), 1, 0, false, 0, NULL);
	assert_string_equal(model_module_name(&m, f.module), "b/libc.so.6");
	assert_string_equal(model_module_name(&m, ps->frames[a].module), "a/libc.so.6");
	model_release(&m);
}

/* ------------------------------------------------------------ modfile */

static char *
path_in(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s/%s", dir, name);
	return strbuf_detach(&sb, NULL);
}

static void
copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

static void
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A sample of main -> f, f in module mod. */
static void
add_sample(struct profile_set *ps, const char *mod, uint64_t w)
{
	struct frame f = { 0 }, main_f = { 0 };
	stack_id s;
	frame_id id;

	main_f.name = ps_str(ps, "main", 4);
	main_f.module = ps_str(ps, "/bin/app", 8);
	f.name = ps_str(ps, "f", 1);
	f.module = ps_str(ps, mod, strlen(mod));
	id = profile_set_frame(ps, &f);
	s = profile_set_stack(ps, profile_set_stack(ps, STACK_ROOT, profile_set_frame(ps, &main_f)),
			      id);
	profile_add_sample(ps->profiles[0], s, w, 0, false, 0, NULL);
}

/*
 * One build-id is one module: two copies of an ELF file (this test) are
 * one, by the shortest path; two names of one file without a build-id
 * (a hard link) are one; another file of that name, and a file that
 * cannot be read, stay modules of their own.
 */
static void
test_unify(void **state)
{
	const char *tmp = getenv("TMPDIR");
	struct strbuf tmpl = STRBUF_INIT;
	const char *dir;
	const char *names[] = { "a", "bb", "c", "d", "e" };
	char *sub[5], *prog[5], *missing;
	struct profile_set *ps = profile_set_new();

	(void)state;
	strbuf_addf(&tmpl, "%s/test_modname.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	dir = mkdtemp(tmpl.buf);
	assert_non_null(dir);
	for (int i = 0; i < 5; i++) {
		sub[i] = path_in(dir, names[i]);
		assert_int_equal(mkdir(sub[i], 0755), 0);
		prog[i] = path_in(sub[i], "prog");
	}
	copy_file("/proc/self/exe", prog[0]);
	copy_file("/proc/self/exe", prog[1]);
	write_text(prog[2], "not ELF\n");
	assert_int_equal(link(prog[2], prog[3]), 0);
	write_text(prog[4], "not ELF\n");
	missing = path_in(dir, "gone/prog");

	profile_set_profile(ps, STR_EMPTY, UNIT_SAMPLES);
	profile_set_thread(ps, 1, 1, STR_EMPTY);
	for (int i = 0; i < 5; i++)
		add_sample(ps, prog[i], (uint64_t)i + 1);
	add_sample(ps, missing, 10);
	assert_int_equal(ps->nr_frames, 7);

	assert_int_equal(profile_set_unify_modules(ps), 2);
	check_profile_set(ps);
	/* main, f in a (and bb), f in c (and d), f in e, f in gone. */
	assert_int_equal(ps->nr_frames, 5);
	for (uint32_t i = 0; i < ps->nr_frames; i++) {
		const char *mod = ps_get(ps, ps->frames[i].module);

		assert_true(!strcmp(mod, "/bin/app") || !strcmp(mod, prog[0]) ||
			    !strcmp(mod, prog[2]) || !strcmp(mod, prog[4]) || !strcmp(mod, missing));
	}
	assert_int_equal(ps->profiles[0]->nr_samples, 6);
	assert_true(ps->profiles[0]->total_weight == 25);
	/* Nothing more to merge: the set is left alone. */
	assert_int_equal(profile_set_unify_modules(ps), 0);

	for (int i = 0; i < 5; i++) {
		unlink(prog[i]);
		rmdir(sub[i]);
		free(prog[i]);
		free(sub[i]);
	}
	rmdir(dir);
	strbuf_release(&tmpl);
	free(missing);
	profile_set_free(ps);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_same_file_name),
		cmocka_unit_test(test_model_names),
		cmocka_unit_test(test_unify),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
