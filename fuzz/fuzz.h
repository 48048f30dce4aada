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
#include "tflame/import.h"
#include "tflame/json_reader.h"
#include "tflame/lines.h"
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

typedef int fuzz_lines_parser(struct line_reader *lr, const struct import_options *opts,
			      struct profile_set *ps, struct tf_error *err);
typedef int fuzz_json_parser(struct json_reader *jr, const struct import_options *opts,
			     struct profile_set *ps, struct tf_error *err);

/* A text importer's line parser on the input as it is, on one thread. */
static inline int
fuzz_lines(const uint8_t *data, size_t size, const struct import_options *opts,
	   fuzz_lines_parser *parse)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct line_reader lr;

	line_reader_init_mem(&lr, (const char *)data, size);
	(void)parse(&lr, opts, ps, &err);
	line_reader_release(&lr);
	fuzz_check_and_free(ps, &err);
	return 0;
}

/* A JSON importer's parser on the input, on one thread. */
static inline int
fuzz_json(const uint8_t *data, size_t size, fuzz_json_parser *parse)
{
	struct import_options opts = { .threads = 1 };
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct json_reader jr;

	json_reader_init_mem(&jr, (const char *)data, size);
	(void)parse(&jr, &opts, ps, &err);
	json_reader_release(&jr);
	fuzz_check_and_free(ps, &err);
	return 0;
}

#endif /* TFLAME_FUZZ_H */
