#include "config.h"

#include "tflame/import.h"

#include "fuzz.h"

/* The cProfile importer (marshal reader and tree walk) on the input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_options opts = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();

	(void)cprofile_parse((const char *)data, size, &opts, ps, &err);
	fuzz_check_and_free(ps, &err);
	return 0;
}
