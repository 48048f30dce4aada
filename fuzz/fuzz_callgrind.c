#include "config.h"

#include "tflame/import.h"

#include "fuzz.h"
#include "tflame/lines.h"

/* The callgrind importer's line parser on the input as it is. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_options opts = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct line_reader lr;

	opts.threads = 1;
	line_reader_init_mem(&lr, (const char *)data, size);
	(void)callgrind_parse_lines(&lr, &opts, ps, &err);
	line_reader_release(&lr);
	fuzz_check_and_free(ps, &err);
	return 0;
}
