#include "config.h"

#include "tflame/import.h"

#include "fuzz.h"

/*
 * The pprof protobuf decoder on the input, taken as already gunzipped
 * (fuzz_import covers the gzip layer in front of it).
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_options opts = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();

	opts.threads = 1;
	(void)pprof_parse_buffer(data, size, &opts, ps, &err);
	fuzz_check_and_free(ps, &err);
	return 0;
}
