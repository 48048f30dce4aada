#include "config.h"

#include "tflame/import.h"

#include "fuzz.h"

/* The JFR importer (chunks, metadata, constant pools, events) on the input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_options opts = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();

	(void)jfr_parse_buffer(data, size, &opts, ps, &err);
	fuzz_check_and_free(ps, &err);
	return 0;
}
