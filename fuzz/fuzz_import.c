#include "config.h"

#include "tflame/import.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

/*
 * Every registered importer through import_file(), as the program runs
 * them: so an importer is fuzzed as soon as it is in importers[]. The
 * first byte picks it (a value past the last importer probes the content
 * instead, which fuzzes the probes too); the rest is the file, kept in a
 * memfd that input_open() opens by its /proc path, so gzip and zstd
 * detection and the input layer are fuzzed along.
 *
 * perf.data is left out: its importer runs perf, which would fuzz perf,
 * slowly. Names are demangled, as the explorer does, so that libiberty
 * meets hostile names with our bounds around it; symbols are not
 * resolved, which would open whatever files the input names.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct import_options opts = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = NULL;
	const char *format = NULL;
	size_t n = 0;

	if (!size)
		return 0;
	if (fd < 0) {
		fd = memfd_create("tflame-fuzz", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		/* Should a compressed input still reach it, perf is not run. */
		setenv("TFLAME_PERF", "/nonexistent/perf", 1);
	}
	while (importers[n])
		n++;
	if (data[0] < n)
		format = importers[data[0]]->name;
	if (format && !strcmp(format, "perf.data"))
		return 0;
	/* With no format, the probes would pick perf.data for its magic. */
	if (!format && size >= 9 && (!memcmp(data + 1, "PERFILE2", 8) ||
				     !memcmp(data + 1, "2ELIFREP", 8) ||
				     !memcmp(data + 1, "PERFFILE", 8)))
		return 0;
	if (ftruncate(fd, 0) || pwrite(fd, data + 1, size - 1, 0) != (ssize_t)(size - 1))
		abort();
	opts.threads = 1;
	opts.demangle = true;
	if (import_file(path, format, &opts, &ps, &err) == 0 && !ps)
		abort();
	fuzz_check_and_free(ps, &err);
	return 0;
}
