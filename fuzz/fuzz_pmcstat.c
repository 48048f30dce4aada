#include "config.h"

#include "fuzz.h"

/* The pmcstat importer's line parser on the input as it is. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_options opts = { .threads = 1 };

	return fuzz_lines(data, size, &opts, pmcstat_parse_lines);
}
