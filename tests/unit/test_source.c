#include "config.h"

#include "tflame/source.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_tmpdir.h"
#include "test_util.h"

#include "tflame/strbuf.h"

/* Frame name in module "m" at file:line (FRAME_HAS_LINE), or at no line when file is NULL. */
static frame_id
mkframe(struct profile_set *ps, const char *name, const char *file, uint32_t line)
{
	struct frame f = { 0 };

	f.name = ps_str(ps, name, strlen(name));
	f.module = ps_str(ps, "m", 1);
	if (file) {
		f.file = ps_str(ps, file, strlen(file));
		f.line = line;
		f.flags = FRAME_HAS_LINE;
	}
	return profile_set_frame(ps, &f);
}

/*
 * A sample of "name@file:line;..." (root first; "name" alone is at no
 * line), as frames with their own file:line: derived positions.
 */
static void
add_framed(struct profile_set *ps, struct profile *p, const char *spec, uint64_t w, int tid)
{
	thread_id t = profile_set_thread(ps, 1, tid, STR_EMPTY);
	stack_id s = STACK_ROOT;
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		char *at = strchr(tok, '@'), *colon;

		if (at) {
			*at++ = '\0';
			colon = strrchr(at, ':');
			*colon = '\0';
			s = profile_set_stack(ps, s,
					      mkframe(ps, tok, at, (uint32_t)atoi(colon + 1)));
		} else {
			s = profile_set_stack(ps, s, mkframe(ps, tok, NULL, 0));
		}
	}
	assert_int_equal(profile_add_sample(p, s, w, 0, false, t, NULL), 0);
}

/*
 * A sample with recorded positions: "name@file:line;..." where the frames
 * are function-level (no line of their own) and the positions carry the
 * lines, as the symbolizer makes them.
 */
static void
add_recorded(struct profile_set *ps, struct profile *p, const char *spec, uint64_t w, int tid)
{
	thread_id t = profile_set_thread(ps, 1, tid, STR_EMPTY);
	stack_id s = STACK_ROOT;
	src_id at_src = SRC_ROOT;
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		char *at = strchr(tok, '@'), *colon;

		*at++ = '\0';
		colon = strrchr(at, ':');
		*colon = '\0';
		s = profile_set_stack(ps, s, mkframe(ps, tok, NULL, 0));
		at_src = profile_set_src(ps, at_src, s, ps_str(ps, at, strlen(at)),
					 (uint32_t)atoi(colon + 1));
	}
	if (!p->src)
		p->src = xcalloc(p->alloc_samples ? p->alloc_samples : 1, sizeof(*p->src));
	assert_int_equal(profile_add_sample(p, s, w, 0, false, t, NULL), 0);
	p->src[p->nr_samples - 1] = at_src;
}

static void
check_sl(const struct source_lines *sl, const struct profile_set *ps)
{
	struct tf_error err = TF_ERROR_INIT;

	if (source_lines_check(sl, ps, &err))
		fail_msg("source_lines_check: %s", tf_error_text(&err));
	tf_error_release(&err);
	check_profile_set(ps);
}

static const struct source_line *
line_of(const struct source_lines *sl, struct profile_set *ps, const char *file, uint32_t line)
{
	return source_lines_find(sl, ps_str(ps, file, strlen(file)), line);
}

static void
expect(const struct source_lines *sl, struct profile_set *ps, const char *file, uint32_t line,
       uint64_t self, uint64_t total)
{
	const struct source_line *l = line_of(sl, ps, file, line);

	if (!l)
		fail_msg("no line %s:%u", file, line);
	assert_int_equal(l->self, self);
	assert_int_equal(l->total, total);
}

static struct profile *
new_profile(struct profile_set *ps)
{
	return profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
}

/* Frames with their own lines (perf -F+srcline): self, total, the frame of a line. */
static void
test_derived(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = new_profile(ps);
	struct source_lines sl;

	(void)state;
	add_framed(ps, p, "main@a.c:10;f@a.c:20", 3, 1);
	add_framed(ps, p, "main@a.c:10;f@a.c:21", 2, 1);
	add_framed(ps, p, "main@a.c:11", 4, 1);
	add_framed(ps, p, "main@a.c:10;libc", 1, 1); /* a leaf at no line */
	source_lines_compute(&sl, ps, p, NULL, SOURCE_ALL_FILES);
	check_sl(&sl, ps);
	assert_false(sl.recorded);
	assert_int_equal(sl.all, 10);
	assert_int_equal(sl.placed, 10);
	assert_int_equal(sl.nr, 4);
	expect(&sl, ps, "a.c", 10, 0, 6);
	expect(&sl, ps, "a.c", 11, 4, 4);
	expect(&sl, ps, "a.c", 20, 3, 3);
	expect(&sl, ps, "a.c", 21, 2, 2);
	assert_string_equal(frame_name(ps, line_of(&sl, ps, "a.c", 20)->frame), "f");
	assert_null(line_of(&sl, ps, "a.c", 12));
	source_lines_release(&sl);
	profile_set_free(ps);
}

/* a.c:5 -> a.c:5 (recursion through one line) counts once in total. */
static void
test_recursion_once(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = new_profile(ps);
	struct source_lines sl;

	(void)state;
	add_framed(ps, p, "main@a.c:1;fib@a.c:5;fib@a.c:5;fib@a.c:5", 7, 1);
	add_framed(ps, p, "main@a.c:1;fib@a.c:5;fib@a.c:6", 2, 1);
	add_framed(ps, p, "main@a.c:1;fib@a.c:6;fib@a.c:5", 1, 1);
	source_lines_compute(&sl, ps, p, NULL, SOURCE_ALL_FILES);
	check_sl(&sl, ps);
	expect(&sl, ps, "a.c", 1, 0, 10);
	expect(&sl, ps, "a.c", 5, 8, 10);
	expect(&sl, ps, "a.c", 6, 2, 3);
	source_lines_release(&sl);
	profile_set_free(ps);
}

/* The thread filter: only the kept threads' samples count. */
static void
test_thread_filter(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = new_profile(ps);
	struct sample_filter filter = { 0 };
	struct source_lines sl;
	bool *keep;

	(void)state;
	add_framed(ps, p, "main@a.c:1;f@a.c:2", 5, 1);
	add_framed(ps, p, "main@a.c:1;g@a.c:3", 7, 2);
	keep = xcalloc(ps->nr_threads, sizeof(*keep));
	keep[profile_set_thread(ps, 1, 2, STR_EMPTY)] = true;
	filter.threads = keep;
	source_lines_compute(&sl, ps, p, &filter, SOURCE_ALL_FILES);
	check_sl(&sl, ps);
	assert_int_equal(sl.all, 7);
	assert_int_equal(sl.nr, 2);
	expect(&sl, ps, "a.c", 1, 0, 7);
	expect(&sl, ps, "a.c", 3, 7, 7);
	assert_null(line_of(&sl, ps, "a.c", 2));
	source_lines_release(&sl);
	free(keep);
	profile_set_free(ps);
}

/*
 * Recorded positions: two samples in one function (one stack) at two
 * lines, an inlined call, one file asked for, and a sample without a
 * position, which falls back to its frames.
 */
static void
test_recorded(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = new_profile(ps);
	struct source_lines sl;
	uint32_t nr, first;

	(void)state;
	add_recorded(ps, p, "main@m.c:30;work@w.c:7", 4, 1);
	add_recorded(ps, p, "main@m.c:30;work@w.c:8", 6, 1);
	add_recorded(ps, p, "main@m.c:31;work@w.c:8;inl@h.h:3", 5, 1);
	add_framed(ps, p, "main@m.c:40", 2, 1);
	assert_int_equal(p->src[3], SRC_ROOT);
	source_lines_compute(&sl, ps, p, NULL, SOURCE_ALL_FILES);
	check_sl(&sl, ps);
	assert_true(sl.recorded);
	assert_int_equal(sl.all, 17);
	expect(&sl, ps, "m.c", 30, 0, 10);
	expect(&sl, ps, "m.c", 31, 0, 5);
	expect(&sl, ps, "m.c", 40, 2, 2);
	expect(&sl, ps, "w.c", 7, 4, 4);
	expect(&sl, ps, "w.c", 8, 6, 11);
	expect(&sl, ps, "h.h", 3, 5, 5);
	assert_string_equal(frame_name(ps, line_of(&sl, ps, "w.c", 8)->frame), "work");
	first = source_lines_of_file(&sl, ps_str(ps, "w.c", 3), &nr);
	assert_int_equal(nr, 2);
	assert_int_equal(sl.lines[first].line, 7);
	source_lines_release(&sl);

	/* One file: the others are at no line. */
	source_lines_compute(&sl, ps, p, NULL, ps_str(ps, "w.c", 3));
	check_sl(&sl, ps);
	assert_int_equal(sl.nr, 2);
	assert_int_equal(sl.placed, 15);
	expect(&sl, ps, "w.c", 8, 6, 11);
	source_lines_release(&sl);
	profile_set_free(ps);
}

/*
 * What the symbolizer does, by profile_set_rewrite(): "outer" becomes
 * outer, middle and inner (inlined), each at its declaration line, and
 * the positions say where each executes or calls from.
 */
static void
rewrite_inline(void *ctx, struct profile_set *ps, const struct frame *old,
	       struct frame_rewrite *out)
{
	static struct frame frames[3];
	static str_id file[3];
	static uint32_t line[3];
	static const char *const names[3] = { "outer", "middle", "inner" };
	static const uint32_t decl[3] = { 38, 32, 25 }, at[3] = { 40, 34, 27 };
	const char *name = ps_get(ps, old->name);
	str_id prog = ps_str(ps, "prog.c", 6);

	(void)ctx;
	if (!strcmp(name, "driver")) {
		frames[0] = *old;
		frames[0].file = prog;
		frames[0].line = 44;
		frames[0].flags |= FRAME_HAS_LINE;
		file[0] = prog;
		line[0] = 49;
		*out = (struct frame_rewrite){
			.frames = frames, .file = file, .line = line, .nr = 1
		};
		return;
	}
	for (int i = 0; i < 3; i++) {
		frames[i] = *old;
		frames[i].name = ps_str(ps, names[i], strlen(names[i]));
		frames[i].file = prog;
		frames[i].line = decl[i];
		frames[i].flags = FRAME_HAS_LINE | (i ? FRAME_INLINED : 0);
		file[i] = prog;
		line[i] = at[i];
	}
	*out = (struct frame_rewrite){ .frames = frames, .file = file, .line = line, .nr = 3 };
}

/* Positions from a rewrite: lines where the code runs, not declarations. */
static void
test_rewrite(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = new_profile(ps);
	struct source_lines sl;

	(void)state;
	add_framed(ps, p, "driver;outer", 5, 1);
	add_framed(ps, p, "driver", 1, 1);
	profile_set_rewrite(ps, rewrite_inline, NULL);
	check_profile_set(ps);
	source_lines_compute(&sl, ps, p, NULL, SOURCE_ALL_FILES);
	check_sl(&sl, ps);
	assert_true(sl.recorded);
	assert_int_equal(sl.nr, 4);
	expect(&sl, ps, "prog.c", 27, 5, 5);
	expect(&sl, ps, "prog.c", 34, 0, 5);
	expect(&sl, ps, "prog.c", 40, 0, 5);
	expect(&sl, ps, "prog.c", 49, 1, 6);
	assert_null(line_of(&sl, ps, "prog.c", 38));
	assert_string_equal(frame_name(ps, line_of(&sl, ps, "prog.c", 27)->frame), "inner");
	assert_string_equal(frame_name(ps, line_of(&sl, ps, "prog.c", 34)->frame), "middle");
	source_lines_release(&sl);
	profile_set_free(ps);
}

/* The top order, and the file a function is in. */
static void
test_top_and_func_file(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = new_profile(ps);
	struct source_lines sl;
	struct func_table ft;
	uint32_t *top;
	func_id f = 0;

	(void)state;
	add_framed(ps, p, "main@m.c:1;f@f.c:2", 5, 1);
	add_framed(ps, p, "main@m.c:1;f@f.c:3", 5, 1);
	add_framed(ps, p, "main@m.c:1;g@b.c:9", 5, 1);
	add_framed(ps, p, "main@m.c:2", 1, 1);
	source_lines_compute(&sl, ps, p, NULL, SOURCE_ALL_FILES);
	check_sl(&sl, ps);
	top = source_lines_top(&sl, ps);
	/* self 5 three times: by file name, then line; then m.c:2 (self 1), m.c:1 */
	assert_string_equal(ps_get(ps, sl.lines[top[0]].file), "b.c");
	assert_int_equal(sl.lines[top[1]].line, 2);
	assert_int_equal(sl.lines[top[2]].line, 3);
	assert_int_equal(sl.lines[top[3]].line, 2);
	assert_string_equal(ps_get(ps, sl.lines[top[3]].file), "m.c");
	assert_int_equal(sl.lines[top[4]].line, 1);
	free(top);
	func_table_init(&ft, ps);
	while (strcmp(ps_get(ps, ft.funcs[f].name), "f"))
		f++;
	assert_string_equal(ps_get(ps, source_func_file(&sl, ps, ft.frame_func, f)), "f.c");
	func_table_release(&ft);
	source_lines_release(&sl);
	profile_set_free(ps);
}

/* A deep stack: no recursion, and a line on every level counts once. */
static void
test_deep(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = new_profile(ps);
	thread_id t = profile_set_thread(ps, 1, 1, STR_EMPTY);
	frame_id fr = mkframe(ps, "r", "r.c", 1);
	stack_id s = STACK_ROOT;
	struct source_lines sl;

	(void)state;
	for (int i = 0; i < 200000; i++)
		s = profile_set_stack(ps, s, fr);
	assert_int_equal(profile_add_sample(p, s, 3, 0, false, t, NULL), 0);
	source_lines_compute(&sl, ps, p, NULL, SOURCE_ALL_FILES);
	check_sl(&sl, ps);
	expect(&sl, ps, "r.c", 1, 3, 3);
	source_lines_release(&sl);
	profile_set_free(ps);
}

/* An empty profile, and a set with no lines at all. */
static void
test_no_lines(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = new_profile(ps);
	struct source_lines sl;

	(void)state;
	source_lines_compute(&sl, ps, p, NULL, SOURCE_ALL_FILES);
	check_sl(&sl, ps);
	assert_int_equal(sl.nr, 0);
	add_framed(ps, p, "a;b", 3, 1);
	source_lines_compute(&sl, ps, p, NULL, SOURCE_ALL_FILES);
	check_sl(&sl, ps);
	assert_int_equal(sl.nr, 0);
	assert_int_equal(sl.all, 3);
	assert_int_equal(sl.placed, 0);
	source_lines_release(&sl);
	profile_set_free(ps);
}

static void
write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void
expect_miss(const char *path, const struct source_search *where, const char *want)
{
	struct source_file sf;
	struct tf_error err = TF_ERROR_INIT;

	assert_int_equal(source_file_load(&sf, path, where, &err), -1);
	assert_string_equal(tf_error_text(&err), want);
	source_file_release(&sf);
	tf_error_release(&err);
}

/* Finding files: the reasons, --source-dir tails, the profile's directory. */
static void
test_files(void **state)
{
	struct tmpdir *td = *state;
	const char *dir = td->dir;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, line = STRBUF_INIT;
	const char *dirs[1];
	struct source_search where = { NULL, 0, NULL };
	struct source_file sf;
	struct tf_error err = TF_ERROR_INIT;

	expect_miss("", NULL, "not recorded");
	expect_miss("??", NULL, "not recorded");
	strbuf_addf(&a, "%s/nope.c", dir);
	strbuf_addf(&b, "no such file: %s", a.buf);
	expect_miss(a.buf, NULL, b.buf);
	/* A directory. */
	strbuf_reset(&b);
	strbuf_addf(&b, "not a regular file: %s", dir);
	expect_miss(dir, NULL, b.buf);
	/* A FIFO is not opened for reading (that would wait for a writer). */
	strbuf_reset(&a);
	strbuf_addf(&a, "%s/fifo.c", dir);
	assert_int_equal(mkfifo(a.buf, 0644), 0);
	strbuf_reset(&b);
	strbuf_addf(&b, "not a regular file: %s", a.buf);
	expect_miss(a.buf, NULL, b.buf);
	/* Binary. */
	strbuf_reset(&a);
	strbuf_addf(&a, "%s/bin.c", dir);
	write_file(a.buf, "ab\0cd", 5);
	strbuf_reset(&b);
	strbuf_addf(&b, "binary file: %s", a.buf);
	expect_miss(a.buf, NULL, b.buf);
	/* Unreadable (not as root, who reads anything). */
	if (geteuid() != 0) {
		strbuf_reset(&a);
		strbuf_addf(&a, "%s/secret.c", dir);
		write_file(a.buf, "x\n", 2);
		chmod(a.buf, 0);
		strbuf_reset(&b);
		strbuf_addf(&b, "permission denied: %s", a.buf);
		expect_miss(a.buf, NULL, b.buf);
	}

	/* --source-dir: the tails of the recorded path, then the basename. */
	strbuf_reset(&a);
	strbuf_addf(&a, "%s/src", dir);
	assert_int_equal(mkdir(a.buf, 0755), 0);
	strbuf_addstr(&a, "/x.c");
	{
		const char *text = "int x;\r\n\tif (a) \x1b[31m\\n\n\xff\nlast";

		write_file(a.buf, text, strlen(text));
	}
	dirs[0] = dir;
	where.dirs = dirs;
	where.nr_dirs = 1;
	assert_int_equal(source_file_load(&sf, "/build/y/src/x.c", &where, &err), 0);
	assert_string_equal(sf.path, a.buf);
	assert_int_equal(sf.nr_lines, 4);
	source_file_line(&sf, 1, &line);
	assert_string_equal(line.buf, "int x;");
	strbuf_reset(&line);
	source_file_line(&sf, 2, &line);
	assert_string_equal(line.buf, "        if (a) \\e[31m\\n");
	strbuf_reset(&line);
	source_file_line(&sf, 3, &line);
	assert_string_equal(line.buf, "\\xff");
	strbuf_reset(&line);
	source_file_line(&sf, 4, &line);
	assert_string_equal(line.buf, "last");
	source_file_release(&sf);
	/* Not under the dir either: the message names the path as recorded. */
	expect_miss("/build/y/src/z.c", &where, "no such file: /build/y/src/z.c");

	/* A relative path, in the profile's directory. */
	where.dirs = NULL;
	where.nr_dirs = 0;
	where.profile_dir = dir;
	assert_int_equal(source_file_load(&sf, "src/x.c", &where, &err), 0);
	source_file_release(&sf);

	/*
	 * A JS profile's file: URL is the path it names, escapes decoded;
	 * with --source-dir its tails too. Another host, or a %00, names no
	 * local file: the message gives the URL as recorded.
	 */
	strbuf_reset(&a);
	strbuf_addf(&a, "%s/src/a b.js", dir);
	write_file(a.buf, "f();\n", 5);
	strbuf_reset(&b);
	strbuf_addf(&b, "file://%s/src/a%%20b.js", dir);
	assert_int_equal(source_file_load(&sf, b.buf, NULL, &err), 0);
	assert_string_equal(sf.path, a.buf);
	source_file_release(&sf);
	strbuf_reset(&b);
	strbuf_addf(&b, "file://localhost%s/src/a%%20b.js?v=2", dir);
	assert_int_equal(source_file_load(&sf, b.buf, NULL, &err), 0);
	assert_string_equal(sf.path, a.buf);
	source_file_release(&sf);
	where.dirs = dirs;
	where.nr_dirs = 1;
	assert_int_equal(source_file_load(&sf, "file:///app/src/a%20b.js", &where, &err), 0);
	assert_string_equal(sf.path, a.buf);
	source_file_release(&sf);
	expect_miss("file://host/src/a%20b.js", NULL, "no such file: file://host/src/a%20b.js");
	expect_miss("file:///src/a%00b.js", NULL, "no such file: file:///src/a%00b.js");
	expect_miss("node:internal/main/run_main_module", &where,
		    "built into node, not a file: node:internal/main/run_main_module");

	tf_error_release(&err);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&line);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_derived),
		cmocka_unit_test(test_recursion_once),
		cmocka_unit_test(test_thread_filter),
		cmocka_unit_test(test_recorded),
		cmocka_unit_test(test_rewrite),
		cmocka_unit_test(test_top_and_func_file),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_no_lines),
		cmocka_unit_test_setup_teardown(test_files, tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
