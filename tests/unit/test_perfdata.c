#include "config.h"

#include "tflame/import.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"
#include "tflame/input.h"
#include "tflame/strbuf.h"

/*
 * The perf.data importer runs perf script; here perf is mostly the stand-in
 * tests/data/perfdata/fake-perf (through TFLAME_PERF), so that what is
 * tested is tflame's handling of the child, not perf.
 */

static char *
data_path(const char *name)
{
	return test_data_path("perfdata", name);
}

static void
use_fake_perf(const char *mode)
{
	char *fake = data_path("fake-perf");

	setenv("TFLAME_PERF", fake, 1);
	setenv("FAKE_PERF_MODE", mode, 1);
	free(fake);
}

/* No child is left unreaped. */
static void
assert_no_children(void)
{
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* Load tiny.data; returns 0 or -1 with err set. */
static int
load(const struct import_options *opts, struct profile_set **out, struct tf_error *err)
{
	char *path = data_path("tiny.data");
	struct profile_set *ps = profile_set_new();
	struct input in;
	int ret;

	if (input_open(&in, path, err))
		fail_msg("%s", tf_error_text(err));
	ret = importer_perfdata.load(&in, opts, ps, err);
	input_close(&in);
	check_profile_set(ps);
	free(path);
	*out = ps;
	return ret;
}

static void
test_probe(void **state)
{
	(void)state;
	assert_int_equal(importer_perfdata.probe("PERFILE2\x68\0\0\0", 12), 100);
	assert_int_equal(importer_perfdata.probe("2ELIFREP", 8), 100);
	assert_int_equal(importer_perfdata.probe("PERFFILE", 8), 100);
	assert_int_equal(importer_perfdata.probe("PERFILE", 7), 0);
	assert_int_equal(importer_perfdata.probe("perf 1/1 1.0: cycles:\n", 22), 0);
	assert_ptr_equal(importer_find("perf.data"), &importer_perfdata);
}

static void
test_fake_sample(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct import_options opts = { 0 };
	struct profile_set *ps;
	char buf[256];

	(void)state;
	use_fake_perf("refuse-period");
	if (load(&opts, &ps, &err))
		fail_msg("%s", tf_error_text(&err));
	assert_string_equal(ps->format, "perf.data");
	/* Read through perf script, but collapsed as any other format. */
	assert_false(ps->perf_script);
	assert_int_equal(ps->nr_profiles, 1);
	assert_int_equal(ps->profiles[0]->nr_samples, 1);
	assert_string_equal(stack_text(ps, ps->profiles[0]->stack[0], buf, sizeof(buf)),
			    "main;leaf");
	assert_int_equal(ps->profiles[0]->time[0], 10000000001);
	assert_int_equal(ps->nr_diags, 0);
	assert_no_children();
	profile_set_free(ps);
	tf_error_release(&err);
}

static void
test_missing_perf(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct import_options opts = { 0 };
	struct profile_set *ps;

	(void)state;
	setenv("TFLAME_PERF", "/nonexistent/perf", 1);
	assert_int_equal(load(&opts, &ps, &err), -1);
	assert_string_equal(err.msg, "perf.data needs the perf tool (apt-get install linux-perf)");
	assert_no_children();
	profile_set_free(ps);
	tf_error_release(&err);
}

static void
test_failures(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct import_options opts = { 0 };
	struct profile_set *ps;

	(void)state;
	use_fake_perf("die");
	assert_int_equal(load(&opts, &ps, &err), -1);
	assert_string_equal(err.msg,
			    "perf script failed: failed to open perf.data: Permission denied");
	profile_set_free(ps);
	use_fake_perf("killed");
	assert_int_equal(load(&opts, &ps, &err), -1);
	assert_string_equal(err.msg, "perf script was killed by signal 9");
	profile_set_free(ps);
	assert_no_children();
	tf_error_release(&err);
}

struct bg_load {
	struct import_options opts;
	struct import_progress progress;
	struct profile_set *ps;
	struct tf_error err;
	int ret;
};

static void *
bg_run(void *arg)
{
	struct bg_load *bg = arg;

	bg->ret = load(&bg->opts, &bg->ps, &bg->err);
	return NULL;
}

/* Cancelling stops and reaps a perf that would print forever. */
static void
test_cancel(void **state)
{
	struct bg_load bg;
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	pthread_t t;

	(void)state;
	memset(&bg, 0, sizeof(bg));
	bg.opts.progress = &bg.progress;
	use_fake_perf("endless");
	assert_int_equal(pthread_create(&t, NULL, bg_run, &bg), 0);
	nanosleep(&ts, NULL);
	atomic_store(&bg.progress.cancel, 1);
	pthread_join(t, NULL);
	assert_int_equal(bg.ret, -1);
	assert_string_equal(bg.err.msg, "cancelled");
	assert_no_children();
	profile_set_free(bg.ps);
	tf_error_release(&bg.err);
}

/* The real perf on the committed recording, when perf is installed. */
static void
test_real_perf(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct import_options opts = { 0 };
	struct profile_set *ps;

	(void)state;
	unsetenv("TFLAME_PERF");
	if (system("perf --version >/dev/null 2>&1") != 0)
		skip();
	if (load(&opts, &ps, &err))
		fail_msg("%s", tf_error_text(&err));
	assert_int_equal(ps->nr_profiles, 1);
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "cpu-clock:uhpppH");
	assert_int_equal(ps->profiles[0]->nr_samples, 47);
	assert_int_equal(ps->profiles[0]->total_weight, 47000000);
	assert_true(ps->profiles[0]->has_time);
	assert_no_children();
	profile_set_free(ps);
	tf_error_release(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_fake_sample),
		cmocka_unit_test(test_missing_perf),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_real_perf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
