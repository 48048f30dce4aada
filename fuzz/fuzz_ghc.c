#include "config.h"

#include "fuzz.h"

/* The GHC profiling JSON (+RTS -pj) importer on the input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_json(data, size, ghc_parse);
}
