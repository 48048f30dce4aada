#ifndef TFLAME_TEST_UTIL_H
#define TFLAME_TEST_UTIL_H

/*
 * Shared by the cmocka unit tests. Include after <cmocka.h>'s prerequisites:
 * this header includes them itself.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tflame/error.h"
#include "tflame/profile.h"

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

#endif /* TFLAME_TEST_UTIL_H */
