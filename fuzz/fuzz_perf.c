#include "config.h"

#include "fuzz.h"

/* The perf importer's line parser on the input as it is. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_options opts = { .threads = 1 };

	/* One run in two reads headers as stackcollapse-perf.pl does. */
	opts.collapse_compat = size && (data[size - 1] & 1);
	return fuzz_lines(data, size, &opts, perf_parse_lines);
}
