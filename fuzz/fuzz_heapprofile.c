#include "config.h"

#include "fuzz.h"

/* The V8 heap profile (.heapprofile) importer on the input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_json(data, size, heapprofile_parse);
}
