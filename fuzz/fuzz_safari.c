#include "config.h"

#include "fuzz.h"

/* The Safari recording importer on the input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_json(data, size, safari_parse);
}
