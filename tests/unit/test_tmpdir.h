#ifndef TFLAME_TEST_TMPDIR_H
#define TFLAME_TEST_TMPDIR_H

/*
 * A temporary directory per test, for the unit tests that need real files:
 * pass tmpdir_setup/tmpdir_teardown to cmocka_unit_test_setup_teardown(),
 * then tmpdir_path() names a file in it and tmpdir_put() writes one. The
 * directory and everything in it are removed after the test.
 */

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "test_util.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

struct tmpdir {
	char *dir;
	struct strbuf path; /* the last path handed out */
};

static inline int
tmpdir_setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	struct tmpdir *td = xcalloc(1, sizeof(*td));
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s/tflame-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(sb.buf)) {
		strbuf_release(&sb);
		free(td);
		return -1;
	}
	td->dir = strbuf_detach(&sb, NULL);
	strbuf_init(&td->path, 0);
	*state = td;
	return 0;
}

static inline int
tmpdir_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline int
tmpdir_teardown(void **state)
{
	struct tmpdir *td = *state;

	nftw(td->dir, tmpdir_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(td->dir);
	strbuf_release(&td->path);
	free(td);
	return 0;
}

/* The path of name in the test's directory; valid until the next call. */
static inline const char *
tmpdir_path(void **state, const char *name)
{
	struct tmpdir *td = *state;

	strbuf_reset(&td->path);
	strbuf_addf(&td->path, "%s/%s", td->dir, name);
	return td->path.buf;
}

/* Write len bytes to name in the test's directory; returns its path. */
static inline const char *
tmpdir_put(void **state, const char *name, const void *data, size_t len)
{
	const char *path = tmpdir_path(state, name);
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

#endif /* TFLAME_TEST_TMPDIR_H */
