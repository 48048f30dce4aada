#ifndef TFLAME_TEST_JSON_IMPORT_H
#define TFLAME_TEST_JSON_IMPORT_H

/*
 * Shared by the JSON importers' unit tests: define PARSE as the importer's
 * parse function (speedscope_parse, chrome_parse) before including this.
 */

#include <stdlib.h>

#include "test_util.h"
#include "tflame/import.h"
#include "tflame/json_reader.h"
#include "tflame/strbuf.h"

static const struct import_options default_opts;

/*
 * Parse text with the importer; the result must be a consistent set.
 * Returns the set, or NULL with the error text in errbuf.
 */
static struct profile_set *
try_parse(const char *text, const struct import_options *opts, char *errbuf, size_t size)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct json_reader jr;
	int r;

	json_reader_init_mem(&jr, text, strlen(text));
	r = PARSE(&jr, opts ? opts : &default_opts, ps, &err);
	json_reader_release(&jr);
	check_profile_set(ps);
	if (r) {
		snprintf(errbuf, size, "%llu: %s", (unsigned long long)err.line, err.msg);
		profile_set_free(ps);
		ps = NULL;
	}
	tf_error_release(&err);
	return ps;
}

static struct profile_set *
parse(const char *text)
{
	char errbuf[512];
	struct profile_set *ps = try_parse(text, NULL, errbuf, sizeof(errbuf));

	if (!ps)
		fail_msg("parse failed: %s", errbuf);
	return ps;
}

static void
parse_fails(const char *text, const char *want)
{
	char errbuf[512];
	struct profile_set *ps = try_parse(text, NULL, errbuf, sizeof(errbuf));

	assert_null(ps);
	assert_string_equal(errbuf, want);
}

/*
 * The samples of profile i as "stack weight@time|tid" lines (time "-"
 * when the profile has none), for one assertion per profile.
 */
static char *
samples_text(const struct profile_set *ps, size_t i)
{
	const struct profile *p = ps->profiles[i];
	struct strbuf sb = STRBUF_INIT;
	char buf[1024];

	for (size_t k = 0; k < p->nr_samples; k++) {
		strbuf_addf(&sb, "%s %llu@", stack_text(ps, p->stack[k], buf, sizeof(buf)),
			    (unsigned long long)p->weight[k]);
		if (p->has_time)
			strbuf_addf(&sb, "%lld", (long long)p->time[k]);
		else
			strbuf_addch(&sb, '-');
		strbuf_addf(&sb, "|%lld\n", (long long)ps->threads[p->thread[k]].tid);
	}
	return strbuf_detach(&sb, NULL);
}

#define ASSERT_SAMPLES(ps, i, want) \
	do { \
		char *got_ = samples_text(ps, i); \
		assert_string_equal(got_, want); \
		free(got_); \
	} while (0)

#endif /* TFLAME_TEST_JSON_IMPORT_H */
