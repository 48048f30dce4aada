#include "config.h"

#include "tflame/collapse.h"

#include <stdlib.h>

#include "tflame/import.h"
#include "tflame/strbuf.h"

#include "test_util.h"

static struct frame
perf_frame(struct profile_set *ps, const char *name, const char *module)
{
	struct frame f = { 0 };

	f.name = ps_str(ps, name, strlen(name));
	f.module = ps_str(ps, module, strlen(module));
	return f;
}

/* Tidy one frame as collapse does and return the text (static buffer). */
static const char *
tidy(const char *name, const char *module, const struct collapse_options *o, bool java)
{
	static char out[512];
	struct profile_set *ps = profile_set_new();
	struct frame f = perf_frame(ps, name, module);
	struct strbuf sb = STRBUF_INIT;
	struct collapse_options none = { 0 };

	if (collapse_tidy_frame(ps, &f, o ? o : &none, java, &sb))
		snprintf(out, sizeof(out), "%s", sb.buf);
	else
		snprintf(out, sizeof(out), "(skipped)");
	strbuf_release(&sb);
	profile_set_free(ps);
	return out;
}

static void
test_tidy_rules(void **state)
{
	(void)state;
	assert_string_equal(tidy("main", "/bin/x", NULL, false), "main");
	assert_string_equal(tidy("(anonymous namespace)::f", "/bin/x", NULL, false), "(skipped)");
	assert_string_equal(tidy("a->b->c", "/bin/x", NULL, false), "a;b_[i];c_[i]");
	assert_string_equal(tidy("[unknown]", "/usr/lib/libc.so.6", NULL, false), "[libc.so.6]");
	assert_string_equal(tidy("[unknown]", "[kernel.kallsyms]", NULL, false),
			    "[[kernel.kallsyms]]");
	assert_string_equal(tidy("[unknown]", "[unknown]", NULL, false), "[unknown]");
	assert_string_equal(tidy("a;b", "/bin/x", NULL, false), "a:b");
	assert_string_equal(tidy("foo(int, char)", "/bin/x", NULL, false), "foo");
	assert_string_equal(tidy("ns::(anonymous namespace)::foo(int)", "/bin/x", NULL, false),
			    "ns::(anonymous namespace)::foo");
	assert_string_equal(tidy("net/http.(*Client).Do", "/bin/x", NULL, false),
			    "net/http.(*Client).Do");
	assert_string_equal(tidy("RegExp:[&<>\"']", "/tmp/perf-7539.map", NULL, false),
			    "RegExp:[&<>]");
	assert_string_equal(tidy("Lorg/mozilla/Foo;.call(Lbar;)V", "/tmp/perf-1.map", NULL, true),
			    "org/mozilla/Foo:.call");
	assert_string_equal(tidy("Lorg/mozilla/Foo;.call(Lbar;)V", "/tmp/perf-1.map", NULL, false),
			    "Lorg/mozilla/Foo:.call");
	assert_string_equal(tidy("Lfoo", "/tmp/perf-1.map", NULL, true), "Lfoo");
	/* A frame line with no module is one the script cannot read. */
	assert_string_equal(tidy("main", "", NULL, false), "(skipped)");
}

static void
test_annotations(void **state)
{
	struct collapse_options all = { .kernel = true, .jit = true };
	struct collapse_options addrs = { .addrs = true };
	struct profile_set *ps = profile_set_new();
	struct frame f = perf_frame(ps, "[unknown]", "/usr/lib/libc.so.6");
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_string_equal(tidy("schedule", "[kernel.kallsyms]", &all, false), "schedule_[k]");
	assert_string_equal(tidy("tcp_sendmsg", "/boot/vmlinux", &all, false), "tcp_sendmsg_[k]");
	assert_string_equal(tidy("f", "[unknown]", &all, false), "f");
	assert_string_equal(tidy("Interp", "/tmp/perf-123.map", &all, false), "Interp_[j]");
	assert_string_equal(tidy("Interp_[j]", "/tmp/perf-123.map", &all, false), "Interp_[j]");
	assert_string_equal(tidy("x", "/tmp/perf-abc.map", &all, false), "x");
	/* _[i] wins over _[k] for inlined pieces. */
	assert_string_equal(tidy("a->b", "[kernel.kallsyms]", &all, false), "a_[k];b_[i]");

	f.addr = 0x7fabf8cf2ad7;
	assert_true(collapse_tidy_frame(ps, &f, &addrs, false, &sb));
	assert_string_equal(sb.buf, "[libc.so.6 <7fabf8cf2ad7>]");
	strbuf_release(&sb);
	profile_set_free(ps);
}

static void
test_inlined_and_srcline(void **state)
{
	struct collapse_options src = { .srcline = true };
	struct profile_set *ps = profile_set_new();
	struct frame f = perf_frame(ps, "[unknown]", "");
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	f.flags = FRAME_INLINED;
	assert_true(collapse_tidy_frame(ps, &f, &src, false, &sb));
	assert_string_equal(sb.buf, "[inlined]");

	strbuf_reset(&sb);
	f = perf_frame(ps, "main", "/a.out");
	f.file = ps_str(ps, "file.cpp", 8);
	f.line = 137;
	f.flags = FRAME_HAS_LINE;
	assert_true(collapse_tidy_frame(ps, &f, &src, false, &sb));
	assert_string_equal(sb.buf, "main:file.cpp:137");

	strbuf_reset(&sb);
	f = perf_frame(ps, "__libc_start_main", "/lib64/libc-2.33.so");
	f.file = ps_str(ps, "libc-2.33.so[27b25]", 19);
	assert_true(collapse_tidy_frame(ps, &f, &src, false, &sb));
	assert_string_equal(sb.buf, "__libc_start_main:libc-2.33.so");

	strbuf_reset(&sb);
	f = perf_frame(ps, "up_write", "[kernel.kallsyms]");
	f.file = ps_str(ps, "[kernel.kallsyms][ffffffff814f9302]", 35);
	assert_true(collapse_tidy_frame(ps, &f, &src, false, &sb));
	assert_string_equal(sb.buf, "up_write");
	strbuf_release(&sb);
	profile_set_free(ps);
}

/* A perf-like set: samples of (event, comm, pid, tid, "root;..;leaf", weight). */
static void
add(struct profile_set *ps, const char *event, const char *comm, int64_t pid, int64_t tid,
    const char *stack, uint64_t w)
{
	struct profile *p = profile_set_profile(ps, ps_str(ps, event, strlen(event)),
						UNIT_EVENTS);
	thread_id t = profile_set_thread(ps, pid, tid, ps_str(ps, comm, strlen(comm)));
	stack_id s = STACK_ROOT;
	const char *q = stack;

	while (*q) {
		const char *e = strchr(q, ';');
		size_t n = e ? (size_t)(e - q) : strlen(q);
		struct frame f = { 0 };

		f.name = ps_str(ps, q, n);
		f.module = ps_str(ps, "/bin/x", 6);
		s = profile_set_stack(ps, s, profile_set_frame(ps, &f));
		q += n + (e ? 1 : 0);
	}
	assert_int_equal(profile_add_sample(p, s, w, 0, false, t, NULL), 0);
}

static char *
run(const struct profile_set *ps, const struct collapse_options *o,
    struct collapse_result *res, int want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct tf_error err = TF_ERROR_INIT;

	assert_int_equal(collapse_write(ps, o, f, res, &err), want);
	fclose(f);
	if (want)
		assert_non_null(err.msg);
	tf_error_release(&err);
	return buf;
}

static void
test_write_perf(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct collapse_options o = { 0 };
	struct collapse_result res;
	char *out;

	(void)state;
	ps->format = importer_perf.description;
	ps->perf_script = true;
	add(ps, "cycles", "my app", -1, 12, "main;work", 10);
	add(ps, "cycles", "my app", -1, 12, "main;work", 5);
	add(ps, "cycles", "my app", -1, 12, "main;a(int)", 1);
	add(ps, "cycles", "my app", -1, 12, "main;a(char)", 2);
	add(ps, "instructions", "my app", -1, 12, "main", 1000);
	add(ps, "", "my app", -1, 12, "main;trace", 1);
	add(ps, "cycles", "idle", 0, 0, "", 4);
	check_profile_set(ps);

	out = run(ps, &o, &res, 0);
	/* a(int) and a(char) tidy to one line; sorted by byte order. */
	assert_string_equal(out, "idle 4\n"
				 "my_app;main;a 3\n"
				 "my_app;main;trace 1\n"
				 "my_app;main;work 15\n");
	assert_string_equal(ps_get(ps, res.kept->name), "cycles");
	assert_int_equal(res.skipped_events, 1);
	assert_int_equal(res.skipped_samples, 1);
	assert_int_equal(res.lines, 4);
	free(out);

	o.pid = true;
	o.event_filter = "instructions";
	out = run(ps, &o, &res, 0);
	assert_string_equal(out, "my_app-?;main 1000\n"
				 "my_app-?;main;trace 1\n");
	assert_int_equal(res.skipped_events, 1);
	free(out);

	o.tid = true;
	o.event_filter = NULL;
	out = run(ps, &o, &res, 0);
	/* A tid of 0 is none to the script: the pid reads "?". */
	assert_non_null(strstr(out, "idle-?/0 4\n"));
	assert_non_null(strstr(out, "my_app-?/12;main;work 15\n"));
	free(out);

	/* Unreadable samples pass any filter, as in the script. */
	o.tid = false;
	o.pid = false;
	o.event_filter = "branches";
	out = run(ps, &o, &res, 0);
	assert_string_equal(out, "my_app;main;trace 1\n");
	assert_null(res.kept);
	free(out);
	profile_set_free(ps);

	/* With none of those, a filter that matches nothing is an error. */
	ps = profile_set_new();
	ps->format = importer_perf.description;
	ps->perf_script = true;
	add(ps, "cycles", "x", 1, 1, "main", 1);
	out = run(ps, &o, &res, -1);
	free(out);
	profile_set_free(ps);
}

static void
test_write_folded_passthrough(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct collapse_options o = { 0 };
	struct collapse_result res;
	char *out;

	(void)state;
	ps->format = "folded stacks";
	add(ps, "", "", -1, -1, "b;c", 2);
	add(ps, "", "", -1, -1, "a b;(x)", 1);
	add(ps, "", "", -1, -1, "b;c", 3);
	out = run(ps, &o, &res, 0);
	assert_string_equal(out, "a b;(x) 1\nb;c 5\n");
	free(out);
	profile_set_free(ps);
}

static void
test_write_differential(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct collapse_options o = { 0 };
	struct collapse_result res;
	char *out;

	(void)state;
	ps->format = "folded stacks";
	add(ps, "before", "", -1, -1, "a;b", 2);
	add(ps, "after", "", -1, -1, "a;b", 7);
	add(ps, "before", "", -1, -1, "a", 1);
	add(ps, "after", "", -1, -1, "a", 0);
	out = run(ps, &o, &res, 0);
	assert_string_equal(out, "a 1 0\na;b 2 7\n");
	free(out);
	profile_set_free(ps);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tidy_rules),
		cmocka_unit_test(test_annotations),
		cmocka_unit_test(test_inlined_and_srcline),
		cmocka_unit_test(test_write_perf),
		cmocka_unit_test(test_write_folded_passthrough),
		cmocka_unit_test(test_write_differential),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
