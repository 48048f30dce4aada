#include "config.h"

#include "tflame/import.h"

#include "test_util.h"
#include "tflame/lines.h"

/*
 * The callgrind importer: header, name and subposition compression, calls
 * with inclusive costs, several events, and the tree unfolded from the
 * call graph.
 */

static const struct import_options default_opts;

static struct profile_set *
parse(const char *text)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct line_reader lr;

	line_reader_init_mem(&lr, text, strlen(text));
	if (callgrind_parse_lines(&lr, &default_opts, ps, &err))
		fail_msg("callgrind_parse_lines: %s", tf_error_text(&err));
	line_reader_release(&lr);
	check_profile_set(ps);
	tf_error_release(&err);
	return ps;
}

static void
parse_fail(const char *text, const char *want)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct line_reader lr;

	line_reader_init_mem(&lr, text, strlen(text));
	assert_int_equal(callgrind_parse_lines(&lr, &default_opts, ps, &err), -1);
	{
		char got[256];

		snprintf(got, sizeof(got), "%llu: %s", (unsigned long long)err.line, err.msg);
		assert_string_equal(got, want);
	}
	line_reader_release(&lr);
	check_profile_set(ps);
	profile_set_free(ps);
	tf_error_release(&err);
}

/* The samples of p as "stack weight" lines, in order. */
static const char *
samples(const struct profile_set *ps, const struct profile *p, char *out, size_t size)
{
	size_t pos = 0;
	char buf[512];

	out[0] = '\0';
	for (size_t i = 0; i < p->nr_samples; i++)
		pos += (size_t)snprintf(out + pos, pos < size ? size - pos : 0, "%s %llu\n",
					stack_text(ps, p->stack[i], buf, sizeof(buf)),
					(unsigned long long)p->weight[i]);
	return out;
}

#define EXAMPLE_TREE \
	"main 20\nmain;func1 100\nmain;func1;func2 300\nmain;func2 400\n"

static void
check_tree(const char *text, const char *want)
{
	struct profile_set *ps = parse(text);
	char out[2048];

	assert_string_equal(samples(ps, ps->profiles[0], out, sizeof(out)), want);
	profile_set_free(ps);
}

static void
test_example(void **state)
{
	(void)state;
	check_tree("# callgrind format\nevents: Instructions\n\nfl=file1.c\nfn=main\n16 20\n"
		   "cfn=func1\ncalls=1 50\n16 400\ncfi=file2.c\ncfn=func2\ncalls=3 20\n16 400\n\n"
		   "fn=func1\n51 100\ncfi=file2.c\ncfn=func2\ncalls=2 20\n51 300\n\n"
		   "fl=file2.c\nfn=func2\n20 700\n",
		   EXAMPLE_TREE);
}

static void
test_name_compression(void **state)
{
	struct profile_set *ps;
	const struct frame *f;

	(void)state;
	check_tree("events: Ir\nfl=(1) file1.c\nfn=(1) main\n16 20\ncfn=(2) func1\ncalls=1 50\n"
		   "16 400\ncfi=(2) file2.c\ncfn=(3) func2\ncalls=3 20\n16 400\n\nfn=(2)\n51 100\n"
		   "cfi=(2)\ncfn=(3)\ncalls=2 20\n51 300\n\nfl=(2)\nfn=(3)\n20 700\n",
		   EXAMPLE_TREE);
	/* Ids are per kind: file 1 and function 1 are different names. */
	ps = parse("events: Ir\nob=(1) /bin/app\nfl=(1) a.c\nfn=(1) main\n1 5\n");
	f = ps_frame(ps, ps_stack(ps, ps->profiles[0]->stack[0])->frame);
	assert_string_equal(ps_get(ps, f->name), "main");
	assert_string_equal(ps_get(ps, f->file), "a.c");
	assert_string_equal(ps_get(ps, f->module), "/bin/app");
	profile_set_free(ps);
	parse_fail("events: Ir\nfn=(4)\n1 5\n", "2: name id (4) used before it was defined");
}

static void
test_subposition_compression(void **state)
{
	(void)state;
	/* "*", "+n", "-n", hex; costs compressed the same way. */
	check_tree("events: Ir\nfl=file1.c\nfn=main\n0x10 20\ncfn=func1\ncalls=1 50\n* 400\n"
		   "cfi=file2.c\ncfn=func2\ncalls=3 20\n* *\n\nfn=func1\n+35 -300\ncfi=file2.c\n"
		   "cfn=func2\ncalls=2 20\n* 300\n\nfl=file2.c\nfn=func2\n-31 +400\n",
		   EXAMPLE_TREE);
	/* Two position columns. */
	check_tree("positions: instr line\nevents: Ir\nfn=f\n0x401000 3 7\n+4 * 5\n", "f 12\n");
}

/* cfi/cfl name the callee of one call only; the next call is in the caller's file. */
static void
test_cfn_reset(void **state)
{
	(void)state;
	check_tree("events: Instructions\nfl=alpha.c\nfn=alpha\n1 10\ncfl=beta.c\ncfn=beta\n"
		   "calls=1 1\n1 10\ncfn=gamma\ncalls=1 1\n1 10\ncfn=delta\ncalls=1 1\n1 20\n\n"
		   "fn=delta\n1 10\ncfn=gamma\ncalls=1 1\n1 10\n\nfn=gamma\n1 10\ncfl=\n\n"
		   "fl=beta.c\nfn=beta\n1 10\n",
		   "alpha 10\nalpha;beta 10\nalpha;gamma 10\nalpha;delta 10\nalpha;delta;gamma 10\n");
}

/* A callee shared by two callers gets the same split under each. */
static void
test_shared_callee(void **state)
{
	(void)state;
	check_tree("events: Ir\nfn=start\ncfn=backup\ncalls=1 1\n1 4\nfn=end\ncfn=backup\n"
		   "calls=1 1\n1 4\nfn=backup\ncfn=read\ncalls=1 1\n1 4\ncfn=write\ncalls=1 1\n"
		   "1 4\nfn=read\n1 4\nfn=write\n1 4\n",
		   "start;backup;read 2\nstart;backup;write 2\nend;backup;read 2\n"
		   "end;backup;write 2\n");
}

/* The recorded figures of the function called name: "self/total". */
static const char *
figure(const struct profile_set *ps, const struct profile *p, const char *name, char *buf,
       size_t size)
{
	uint64_t self = 0, total = 0;
	bool found = false;

	for (uint32_t i = 0; i < p->nr_figures; i++) {
		if (strcmp(ps_get(ps, ps_frame(ps, p->figures[i].frame)->name), name))
			continue;
		self += p->figures[i].self;
		total += p->figures[i].total;
		found = true;
	}
	snprintf(buf, size, found ? "%llu/%llu" : "none", (unsigned long long)self,
		 (unsigned long long)total);
	return buf;
}

/*
 * Recursion: a call to a function on the path takes no share, its cost
 * being inside the outer call's; f's weight splits between its own 6
 * and g's 4, as the file says, rather than keeping the recursive call's
 * cost as its self (which gave f 8 and g 2).
 */
static void
test_recursion(void **state)
{
	const char *text = "events: Ir\nfn=main\n1 1\ncfn=f\ncalls=1 1\n1 10\nfn=f\n1 6\n"
			   "cfn=f\ncalls=3 1\n1 8\ncfn=g\ncalls=1 1\n1 4\nfn=g\n1 4\n";
	struct profile_set *ps;
	char buf[64];

	(void)state;
	check_tree(text, "main 1\nmain;f 6\nmain;f;g 4\n");
	/* The figures: f's calls to itself are inside its outer call. */
	ps = parse(text);
	assert_string_equal(figure(ps, ps->profiles[0], "main", buf, sizeof(buf)), "1/11");
	assert_string_equal(figure(ps, ps->profiles[0], "f", buf, sizeof(buf)), "6/10");
	assert_string_equal(figure(ps, ps->profiles[0], "g", buf, sizeof(buf)), "4/4");
	profile_set_free(ps);
}

/*
 * Mutual recursion under --separate-recs: a -> b -> a'2 -> b'2 -> a'2.
 * Calls from outside a function's cycle are its inclusive cost, exactly;
 * b'2, called from inside its cycle only, is capped at the cost of the
 * calls into the cycle. callgrind_annotate would give a'2 30 + 22 and
 * b'2 26.
 */
static void
test_mutual_recursion(void **state)
{
	struct profile_set *ps;
	char buf[64];

	(void)state;
	ps = parse("events: Ir\nfn=a\n1 1\ncfn=b\ncalls=1 1\n1 31\n"
		   "fn=b\n1 1\ncfn=a'2\ncalls=1 1\n1 30\n"
		   "fn=a'2\n1 4\ncfn=b'2\ncalls=2 1\n1 26\n"
		   "fn=b'2\n1 4\ncfn=a'2\ncalls=1 1\n1 22\n");
	assert_string_equal(figure(ps, ps->profiles[0], "a", buf, sizeof(buf)), "1/32");
	assert_string_equal(figure(ps, ps->profiles[0], "b", buf, sizeof(buf)), "1/31");
	assert_string_equal(figure(ps, ps->profiles[0], "a'2", buf, sizeof(buf)), "4/30");
	assert_string_equal(figure(ps, ps->profiles[0], "b'2", buf, sizeof(buf)), "4/26");
	/* The tree weighs what its one root, a, does. */
	assert_int_equal(ps->profiles[0]->total_weight, 32);
	profile_set_free(ps);
}

static void
test_several_events(void **state)
{
	struct profile_set *ps;
	char out[512];

	(void)state;
	ps = parse("version: 1\ncreator: xdebug\ncmd: index.php\npid: 42\npositions: line\n"
		   "events: Time_(10ns) Memory_(bytes)\nsummary: 10 20\nfn=main\n1 3 100\n"
		   "cfn=f\ncalls=1 1\n1 7 50\nfn=f\n1 7\n");
	assert_int_equal(ps->nr_profiles, 2);
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "Time_(10ns)");
	assert_int_equal(ps->profiles[0]->unit, UNIT_EVENTS);
	assert_string_equal(ps_get(ps, ps->profiles[1]->name), "Memory_(bytes)");
	assert_int_equal(ps->profiles[1]->unit, UNIT_BYTES);
	assert_string_equal(samples(ps, ps->profiles[0], out, sizeof(out)), "main 3\nmain;f 7\n");
	/* f's own line lacks the memory cost (0): the call's inclusive 50 is f's. */
	assert_string_equal(samples(ps, ps->profiles[1], out, sizeof(out)), "main 100\nmain;f 50\n");
	assert_int_equal(ps->threads[ps->profiles[0]->thread[0]].pid, 42);
	profile_set_free(ps);
}

static void
test_errors(void **state)
{
	struct profile_set *ps;

	(void)state;
	parse_fail("fn=main\n1 5\n", "2: cost line before the events: header");
	parse_fail("# nothing\n", "0: no events: header in callgrind input");
	parse_fail("events: A\nevents: B\n", "2: events: differs from the first one");
	ps = parse("events: Ir\nfn=main\n1 5\n1 x\n%%%\njump=1 5\n");
	assert_int_equal(ps->nr_diags, 1);
	assert_string_equal(ps->diags[0].msg, "2 lines not understood, first: 1 x");
	assert_int_equal(ps->diags[0].line, 4);
	profile_set_free(ps);
}

static int
probe(const char *text)
{
	const struct importer *imp = importer_find("callgrind");

	assert_non_null(imp);
	return imp->probe(text, strlen(text));
}

static void
test_probe(void **state)
{
	(void)state;
	assert_int_equal(probe("# callgrind format\nevents: Ir\n"), 100);
	assert_true(probe("version: 1\ncreator: callgrind-3.22\npid: 1\nevents: Ir\n\nfl=a.c\n") >= 50);
	assert_int_equal(probe("main;work 12\n"), 0);
	assert_int_equal(probe("java 12688 [002] 6544038.708352: 235 cpu-clock:\n"), 0);
	assert_int_equal(probe("{\"events\": []}"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_name_compression),
		cmocka_unit_test(test_subposition_compression),
		cmocka_unit_test(test_cfn_reset),
		cmocka_unit_test(test_shared_callee),
		cmocka_unit_test(test_recursion),
		cmocka_unit_test(test_mutual_recursion),
		cmocka_unit_test(test_several_events),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
