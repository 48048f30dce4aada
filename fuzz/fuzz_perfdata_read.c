#include "config.h"

#include "tflame/perfdata_read.h"

#include "fuzz.h"

/*
 * The native perf.data reader (header, attrs, features, records, rounds,
 * compressed records, callchains) on the input, as a file of that content.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_options opts = { .threads = 1 };
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct perfdata_info info;

	(void)perfdata_read_buffer(data, size, &opts, ps, &info, &err);
	perfdata_info_release(&info);
	fuzz_check_and_free(ps, &err);
	return 0;
}
