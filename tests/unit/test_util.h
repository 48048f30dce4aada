#ifndef TFLAME_TEST_UTIL_H
#define TFLAME_TEST_UTIL_H

/*
 * Shared by the cmocka unit tests. Include after <cmocka.h>'s prerequisites:
 * this header includes them itself.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tflame/error.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"

/* tests/data/DIR/NAME in the source tree (make check sets top_srcdir); free() it. */
static inline char *
test_data_path(const char *dir, const char *name)
{
	const char *top = getenv("top_srcdir");
	struct strbuf sb = STRBUF_INIT;

	if (!top)
		fail_msg("top_srcdir is not set (make check sets it)");
	strbuf_addf(&sb, "%s/tests/data/%s/%s", top, dir, name);
	return strbuf_detach(&sb, NULL);
}

/* Fail the test with the checker's message unless the set is consistent. */
static inline void
check_profile_set(const struct profile_set *ps)
{
	struct tf_error err = TF_ERROR_INIT;

	if (profile_set_check(ps, &err))
		fail_msg("profile_set_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

/* The name of a frame, for assertions. */
static inline const char *
frame_name(const struct profile_set *ps, frame_id f)
{
	return ps_get(ps, ps->frames[f].name);
}

/*
 * Write the stack as "root;...;leaf" into buf (truncated at size), for
 * comparing whole stacks in one assertion.
 */
static inline const char *
stack_text(const struct profile_set *ps, stack_id s, char *buf, size_t size)
{
	uint32_t depth = ps->stacks[s].depth;
	size_t pos = 0;
	const char *names[4096];

	if (depth > 4096)
		depth = 4096;
	for (uint32_t i = depth; i > 0 && s != STACK_ROOT; i--) {
		names[i - 1] = frame_name(ps, ps->stacks[s].frame);
		s = ps->stacks[s].parent;
	}
	buf[0] = '\0';
	for (uint32_t i = 0; i < depth; i++)
		pos += (size_t)snprintf(buf + pos, pos < size ? size - pos : 0, "%s%s",
					i ? ";" : "", names[i]);
	return buf;
}

/*
 * The stack "a;b;c" (root first) of frames named a, b, c in module "m",
 * interned into ps; "" is STACK_ROOT.
 */
static inline stack_id
test_stack(struct profile_set *ps, const char *path)
{
	stack_id s = STACK_ROOT;
	const char *q = path;

	while (*q) {
		const char *e = strchr(q, ';');
		size_t n = e ? (size_t)(e - q) : strlen(q);
		struct frame f = { 0 };

		f.name = ps_str(ps, q, n);
		f.module = ps_str(ps, "m", 1);
		s = profile_set_stack(ps, s, profile_set_frame(ps, &f));
		q += n + (e ? 1 : 0);
	}
	return s;
}

/* Add a sample of path to p, on thread (pid 1, tid); time < 0: none. */
static inline stack_id
test_sample(struct profile_set *ps, struct profile *p, const char *path, uint64_t weight,
	    int64_t time, int tid)
{
	thread_id t = profile_set_thread(ps, 1, tid, STR_EMPTY);
	stack_id s = test_stack(ps, path);

	assert_int_equal(profile_add_sample(p, s, weight, time, time >= 0, t, NULL), 0);
	return s;
}

/*
 * Whether every stack of ps but the root is on the path of some sample:
 * a trie built from samples has no stack left over.
 */
static inline bool
test_stacks_all_used(const struct profile_set *ps)
{
	bool *used = calloc(ps->nr_stacks, sizeof(*used)), all = true;

	assert_non_null(used);
	for (size_t pi = 0; pi < ps->nr_profiles; pi++)
		for (size_t i = 0; i < ps->profiles[pi]->nr_samples; i++)
			used[ps->profiles[pi]->stack[i]] = true;
	/* Children come after their parents: one pass from the end. */
	for (stack_id s = ps->nr_stacks - 1; s > 0; s--) {
		if (used[s])
			used[ps->stacks[s].parent] = true;
		else
			all = false;
	}
	free(used);
	return all;
}

#endif /* TFLAME_TEST_UTIL_H */
