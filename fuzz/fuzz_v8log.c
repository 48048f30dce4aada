#include "config.h"

#include "fuzz.h"

/* The V8 tick log (node --prof-process --preprocess) importer on the input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_json(data, size, v8log_parse);
}
