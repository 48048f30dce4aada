#include "config.h"

#include "fuzz.h"

/* The speedscope importer (JSON reader and both profile types) on the input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_json(data, size, speedscope_parse);
}
