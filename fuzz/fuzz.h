#ifndef TFLAME_FUZZ_H
#define TFLAME_FUZZ_H

/*
 * Shared by the libFuzzer targets: each parses its input into a fresh
 * profile set, then checks every invariant of the set, so that a parser
 * that builds something inconsistent fails as loudly as one that crashes.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tflame/error.h"
#include "tflame/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort unless ps is consistent; then free it and err. */
static inline void
fuzz_check_and_free(struct profile_set *ps, struct tf_error *err)
{
	struct tf_error cerr = TF_ERROR_INIT;

	if (ps && profile_set_check(ps, &cerr)) {
		fprintf(stderr, "profile_set_check: %s\n", tf_error_text(&cerr));
		abort();
	}
	/* A failure must say why. */
	if (err->msg && !*err->msg)
		abort();
	tf_error_release(&cerr);
	tf_error_release(err);
	profile_set_free(ps);
}

#endif /* TFLAME_FUZZ_H */
