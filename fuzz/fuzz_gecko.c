#include "config.h"

#include "fuzz.h"

/* The Gecko importer (raw, processed, DevTools recordings) on the input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_json(data, size, gecko_parse);
}
