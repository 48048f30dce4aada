#include "config.h"

#include "tflame/import.h"

#include "fuzz.h"
#include "tflame/json_reader.h"

/* The Chrome importer (trace events and .cpuprofile) on the input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_options opts = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct json_reader jr;

	opts.threads = 1;
	json_reader_init_mem(&jr, (const char *)data, size);
	(void)chrome_parse(&jr, &opts, ps, &err);
	json_reader_release(&jr);
	fuzz_check_and_free(ps, &err);
	return 0;
}
