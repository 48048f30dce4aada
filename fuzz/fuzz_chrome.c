#include "config.h"

#include "fuzz.h"

/* The Chrome importer (trace events and .cpuprofile) on the input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_json(data, size, chrome_parse);
}
