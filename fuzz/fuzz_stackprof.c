#include "config.h"

#include "fuzz.h"

/* The Ruby stackprof JSON importer on the input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_json(data, size, stackprof_parse);
}
